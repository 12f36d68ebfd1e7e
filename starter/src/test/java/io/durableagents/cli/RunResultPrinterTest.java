package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.workflow.RunResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class RunResultPrinterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  /** Built from JSON, as a client would receive it, so new fields do not break the test. */
  private static RunResult sample() throws Exception {
    return JSON.readValue(
        """
        {"sessionId": "chat-1", "run": 1, "status": "finished", "finishReason": "stop",
         "text": "Sunny in Paris.", "steps": 2, "usage": {"inputTokens": 120, "outputTokens": 30},
         "toolCalls": [{"id": "call_0_0", "name": "get_weather", "arguments": {"city": "Paris"},
                        "result": {"city": "Paris", "sky": "sunny"}}],
         "messages": [
           {"role": "user", "text": "hello"},
           {"role": "assistant", "toolCalls": [{"id": "call_0_0", "name": "get_weather", "arguments": {"city": "Paris"}}]},
           {"role": "tool", "toolCallId": "call_0_0", "toolName": "get_weather", "result": {"city": "Paris", "sky": "sunny"}},
           {"role": "assistant", "text": "Sunny in Paris."}]}
        """,
        RunResult.class);
  }

  private static String print(RunResult result, boolean json) {
    StringWriter out = new StringWriter();
    RunResultPrinter.print(result, json, new PrintWriter(out));
    return out.toString();
  }

  @Test
  void anOmittedToolCall_isPrintedAsOmitted_andRestoredFromTheMessages() throws Exception {
    RunResult omitted =
        JSON.readValue(
            """
            {"sessionId": "chat-1", "run": 1, "status": "finished", "text": "Sunny in Paris.",
             "toolCalls": [{"id": "call_0_0", "name": "get_weather", "omitted": true}]}
            """,
            RunResult.class);

    assertThat(print(omitted, false))
        .contains("→ get_weather (arguments and result in the transcript)");
    RunResult restored = omitted.withMessages(sample().messages());
    assertThat(restored.toolCalls().get(0).isOmitted()).isFalse();
    assertThat(print(restored, false))
        .contains("→ get_weather {\"city\":\"Paris\"} = {\"city\":\"Paris\",\"sky\":\"sunny\"}");
    assertThat(
            JSON.readTree(print(omitted, true))
                .path("toolCalls")
                .get(0)
                .path("omitted")
                .asBoolean())
        .isTrue();
  }

  @Test
  void json_isOneDocumentWithTheContractFields() throws Exception {
    String printed = print(sample(), true);

    JsonNode doc = JSON.readTree(printed);
    assertThat(JSON.readerFor(JsonNode.class).readValues(printed).readAll()).hasSize(1);
    assertThat(doc.path("sessionId").asText()).isEqualTo("chat-1");
    assertThat(doc.path("run").asInt()).isEqualTo(1);
    assertThat(doc.path("status").asText()).isEqualTo("finished");
    assertThat(doc.path("finishReason").asText()).isEqualTo("stop");
    assertThat(doc.path("steps").asInt()).isEqualTo(2);
    assertThat(doc.path("usage").path("inputTokens").asLong()).isEqualTo(120);
    assertThat(doc.path("usage").path("outputTokens").asLong()).isEqualTo(30);
    assertThat(doc.path("toolCalls").get(0).path("result").path("sky").asText()).isEqualTo("sunny");
    assertThat(doc.path("messages")).hasSize(4);
    assertThat(doc.path("messages").get(0).path("role").asText()).isEqualTo("user");
    assertThat(doc.path("messages").get(2).path("toolCallId").asText()).isEqualTo("call_0_0");
  }

  @Test
  void human_showsStatusToolCallsAndText() throws Exception {
    String printed = print(sample(), false);

    assertThat(printed)
        .contains("chat-1 · run 1 · finished (stop) · 2 steps · 120 in / 30 out tokens")
        .contains("→ get_weather {\"city\":\"Paris\"} = {\"city\":\"Paris\",\"sky\":\"sunny\"}")
        .endsWith("Sunny in Paris." + System.lineSeparator());
  }

  @Test
  void human_showsTheErrorOfAFailedRun() throws Exception {
    RunResult failed =
        JSON.readValue(
            """
            {"sessionId": "chat-1", "run": 2, "status": "failed", "finishReason": "error", "steps": 1,
             "error": {"code": "model_error", "message": "quota exceeded"}}
            """,
            RunResult.class);

    assertThat(print(failed, false))
        .contains("failed (error)")
        .contains("error: model_error: quota exceeded");
  }

  @Test
  void human_escapesControlCharacters() {
    assertThat(RunResultPrinter.printable("a\u001b[2Jb\nc\u202ed"))
        .isEqualTo("a\\u001b[2Jb\nc\\u202ed");
  }

  @Test
  void longJson_isCut() throws Exception {
    String cut = RunResultPrinter.compactJson(json("{\"text\":\"" + "x".repeat(500) + "\"}"), 50);

    assertThat(cut).hasSize(50).endsWith("…");
  }
}
