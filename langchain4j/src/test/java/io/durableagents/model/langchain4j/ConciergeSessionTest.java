package io.durableagents.model.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.model.openai.OpenAiStreamingChatModel;
import io.durableagents.client.AgentClient;
import io.durableagents.model.openai.FakeChatCompletionsServer;
import io.durableagents.model.openai.Wire;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.AgentTestEnvironment;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The demo agent on the in-memory Temporal with this provider around LangChain4j's streaming OpenAI
 * model, the fake server playing the concierge conversation: weather and restaurant, a booking that
 * waits for an approval, the final answer.
 */
class ConciergeSessionTest {
  private static final String FINAL_TEXT =
      "Done: a table for 2 at Le Petit Zinc tonight at 19:30 is booked. Expect a sunny evening.";

  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void theConciergeConversation_runsThroughAnApproval_toTheModelsFinalAnswer() {
    server.reply(
        FakeChatCompletionsServer.stream(
            Wire.chunk(
                    "{\"role\":\"assistant\",\"content\":\"Let me check the weather and look for"
                        + " a table.\"}",
                    null)
                + toolCall(0, "call_W1", "get_weather", "{\\\"city\\\":", "\\\"Paris\\\"}")
                + toolCall(
                    1,
                    "call_R2",
                    "find_restaurant",
                    "{\\\"city\\\":\\\"Paris\\\",",
                    "\\\"people\\\":2,\\\"time\\\":\\\"19:30\\\"}")
                + Wire.chunk("{}", "tool_calls")
                + usage(182, 41)
                + "data: [DONE]\n\n"),
        FakeChatCompletionsServer.stream(
            Wire.chunk("{\"role\":\"assistant\",\"content\":\"Booking it.\"}", null)
                + toolCall(
                    0,
                    "call_B3",
                    "book_table",
                    "{\\\"restaurant\\\":\\\"Le Petit Zinc\\\",",
                    "\\\"people\\\":2,\\\"time\\\":\\\"19:30\\\"}")
                + Wire.chunk("{}", "tool_calls")
                + usage(265, 38)
                + "data: [DONE]\n\n"),
        FakeChatCompletionsServer.stream(
            Wire.answer(
                "Done: a table for 2 at Le Petit Zinc tonight at 19:30 is booked.",
                " Expect a sunny evening.")));
    LangChain4jModelProvider provider =
        LangChain4jModelProvider.newBuilder(
                OpenAiStreamingChatModel.builder()
                    .baseUrl(server.baseUrl())
                    .apiKey("sk-test")
                    .modelName("gpt-4o-mini")
                    .build())
            .build();

    RunResult finished;
    RunResult paused;
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(ConciergeAgent.create())
            .setModelProvider(provider)
            .start()) {
      AgentClient client = env.client();
      paused = client.send("concierge-1", "Dinner for two in Paris at 19:30, please.");
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      assertThat(paused.approval().toolName()).isEqualTo("book_table");
      assertThat(paused.approval().toolCallId()).isEqualTo("call_B3");

      client.approve("concierge-1", paused.approval().approvalId());
      finished = client.awaitRun("concierge-1");
    }

    assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(finished.text()).isEqualTo(FINAL_TEXT);
    assertThat(finished.toolCalls())
        .extracting(ToolCallRecord::name)
        .containsExactly("get_weather", "find_restaurant", "book_table");
    JsonNode booking = finished.toolCalls().get(2).result();
    assertThat(booking.path("confirmation").asText()).startsWith("BK-");
    assertThat(finished.usage().inputTokens()).isEqualTo(182 + 265 + 10);

    List<FakeChatCompletionsServer.Recorded> requests = server.requests();
    assertThat(requests).hasSize(3);
    JsonNode lastMessages = requests.get(2).json().path("messages");
    JsonNode bookingResult = lastMessages.get(lastMessages.size() - 1);
    assertThat(bookingResult.path("role").asText()).isEqualTo("tool");
    assertThat(bookingResult.path("tool_call_id").asText()).isEqualTo("call_B3");
    assertThat(bookingResult.path("content").asText()).contains("BK-");
    assertThat(requests.get(0).json().path("tools"))
        .extracting(tool -> tool.path("function").path("name").asText())
        .containsExactly("get_weather", "find_restaurant", "book_table");
  }

  /** A tool call whose arguments arrive in two chunks: the first names it, the second ends it. */
  private static String toolCall(int index, String id, String name, String first, String rest) {
    return Wire.chunk(
            "{\"tool_calls\":[{\"index\":"
                + index
                + ",\"id\":\""
                + id
                + "\",\"type\":\"function\",\"function\":{\"name\":\""
                + name
                + "\",\"arguments\":\""
                + first
                + "\"}}]}",
            null)
        + Wire.chunk(
            "{\"tool_calls\":[{\"index\":"
                + index
                + ",\"function\":{\"arguments\":\""
                + rest
                + "\"}}]}",
            null);
  }

  private static String usage(int input, int output) {
    return "data: {\"id\":\"chatcmpl-G\",\"object\":\"chat.completion.chunk\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":"
        + input
        + ",\"completion_tokens\":"
        + output
        + ",\"total_tokens\":"
        + (input + output)
        + "}}\n\n";
  }
}
