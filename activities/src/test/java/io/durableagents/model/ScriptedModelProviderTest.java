package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptedModelProviderTest {
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "first", "toolCalls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}],
         "usage": {"inputTokens": 10, "outputTokens": 3}},
        {"text": "second"},
        {"error": "rate limited forever"}
      ]}
      """;

  private static ModelRequest request(List<Message> messages) {
    return ModelRequest.newBuilder()
        .setSessionId("s")
        .setAgent("agent")
        .setModel("m")
        .setInstructions("")
        .setMessages(messages)
        .setTools(List.of())
        .setStep(1)
        .build();
  }

  @Test
  void turnIsChosenByTheNumberOfAssistantMessages_soARetryPlaysTheSameTurn() {
    ScriptedModelProvider model = ScriptedModelProvider.fromJson(SCRIPT);
    List<Message> conversation = new ArrayList<>(List.of(Message.user("hi")));

    ModelResponse first = model.generate(request(conversation), ModelStream.discarding());
    ModelResponse retried = model.generate(request(conversation), ModelStream.discarding());

    assertThat(first).isEqualTo(retried);
    assertThat(first.text()).isEqualTo("first");
    assertThat(first.toolCalls()).extracting(ToolCall::id).containsExactly("call_0_0", "call_0_1");
    assertThat(first.toolCalls().get(0).arguments().get("x").asInt()).isEqualTo(1);
    assertThat(first.toolCalls().get(1).arguments().isObject()).isTrue();
    assertThat(first.usage().inputTokens()).isEqualTo(10);
    assertThat(first.finishReason()).isEqualTo("tool-calls");

    conversation.add(Message.assistant("first", first.toolCalls()));
    ModelResponse second = model.generate(request(conversation), ModelStream.discarding());
    assertThat(second.text()).isEqualTo("second");
    assertThat(second.toolCalls()).isEmpty();
    assertThat(second.finishReason()).isEqualTo("stop");
  }

  @Test
  void errorTurn_failsWithThatMessage_andPastTheLastTurnTheScriptHasEnded() {
    ScriptedModelProvider model = ScriptedModelProvider.fromJson(SCRIPT);
    List<Message> twoTurnsIn =
        List.of(Message.user("hi"), Message.assistant("1", null), Message.assistant("2", null));
    assertThatThrownBy(() -> model.generate(request(twoTurnsIn), ModelStream.discarding()))
        .isInstanceOf(ModelException.class)
        .hasMessage("rate limited forever")
        .satisfies(e -> assertThat(((ModelException) e).retryable()).isFalse());

    List<Message> past = new ArrayList<>(twoTurnsIn);
    past.add(Message.assistant("3", null));
    assertThat(model.generate(request(past), ModelStream.discarding()).text())
        .isEqualTo(ScriptedModelProvider.SCRIPT_ENDED);
  }

  @Test
  void toolCallsThatAreAnObject_areRefusedAtLoad_namingTheTurnAndField(@TempDir Path dir)
      throws Exception {
    String script =
        "{\"turns\": [{\"text\": \"ok\"}, {\"toolCalls\": {\"name\": \"add\", \"arguments\": {}}}]}";
    assertThatThrownBy(() -> ScriptedModelProvider.fromJson(script))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Model script turns[1].toolCalls must be an array of {\"name\", \"arguments\"} objects, not an object.");
    Path file = Files.writeString(dir.resolve("bad.json"), script);
    assertThatThrownBy(() -> ModelProviders.fromSpec("scripted:" + file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(file + ": Model script turns[1].toolCalls");
  }

  @Test
  void everyMalformedShape_isRefusedAtLoad_namingTheTurnAndField() {
    java.util.Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put(
        "{'toolCalls': [{'arguments': {}}]}",
        "turns[0].toolCalls[0].name must be a non-empty string, not missing");
    refused.put(
        "{'toolCalls': [{'name': ' '}]}", "turns[0].toolCalls[0].name must be a non-empty string");
    refused.put(
        "{'toolCalls': [{'name': 7}]}",
        "turns[0].toolCalls[0].name must be a non-empty string, not a number (7)");
    refused.put("{'toolCalls': ['add']}", "turns[0].toolCalls[0] must be an object");
    refused.put(
        "{'toolCalls': [{'name': 'a', 'arguments': [1]}]}",
        "turns[0].toolCalls[0].arguments must be a JSON object, not an array");
    refused.put(
        "{'toolCalls': [{'name': 'a', 'arguments': '{}'}]}",
        "turns[0].toolCalls[0].arguments must be a JSON object, not a string");
    refused.put(
        "{'toolCalls': [{'name': 'a', 'id': 'x'}]}", "turns[0].toolCalls[0]: unknown field \"id\"");
    refused.put("{'toolCalls': 'add'}", "turns[0].toolCalls must be an array");
    refused.put(
        "{'usage': {'inputTokens': -5}}",
        "turns[0].usage.inputTokens must be a non-negative integer");
    refused.put(
        "{'usage': {'outputTokens': 'many'}}",
        "turns[0].usage.outputTokens must be a non-negative integer");
    refused.put(
        "{'usage': {'inputTokens': 1.5}}",
        "turns[0].usage.inputTokens must be a non-negative integer");
    refused.put(
        "{'usage': {'inputTokens': 99999999999999999999}}",
        "turns[0].usage.inputTokens must be a non-negative integer");
    refused.put(
        "{'usage': {'inputTokens': 9223372036854775807, 'outputTokens': 1}}",
        "turns[0].usage: inputTokens + outputTokens overflow a 64-bit count");
    refused.put("{'usage': [1, 2]}", "turns[0].usage must be an object");
    refused.put("{'usage': {'tokens': 3}}", "turns[0].usage: unknown field \"tokens\"");
    refused.put("{'delayMs': -1}", "turns[0].delayMs must be a non-negative integer");
    refused.put("{'text': 42}", "turns[0].text must be a string, not a number (42)");
    refused.put("{'error': {'code': 'x'}}", "turns[0].error must be a string, not an object");
    refused.put("{'toolcalls': []}", "turns[0]: unknown field \"toolcalls\"");
    refused.put("[]", "turns[0] must be an object, not an array");
    for (var entry : refused.entrySet()) {
      String script = ("{'turns': [" + entry.getKey() + "]}").replace('\'', '"');
      assertThatThrownBy(() -> ScriptedModelProvider.fromJson(script))
          .as(script)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Model script " + entry.getValue());
    }
  }

  @Test
  void malformedScripts_andUnknownSpecs_giveClearErrors(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> ScriptedModelProvider.fromJson("{\"turn\": []}"))
        .hasMessageContaining("\"turns\" array");
    assertThatThrownBy(() -> ScriptedModelProvider.fromJson("not json"))
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> ModelProviders.fromSpec("scripted:" + dir.resolve("missing.json")))
        .hasMessageContaining("not found");
    assertThatThrownBy(() -> ModelProviders.fromSpec("gpt:4"))
        .hasMessageContaining("scripted:PATH");
    Path script = Files.writeString(dir.resolve("s.json"), SCRIPT);
    assertThat(ModelProviders.fromSpec("scripted:" + script))
        .isInstanceOf(ScriptedModelProvider.class);
  }
}
