package io.durableagents.model.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.client.AgentClient;
import io.durableagents.model.openai.FakeChatCompletionsServer;
import io.durableagents.model.openai.Wire;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.AgentTestEnvironment;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The demo agent's whole conversation through Spring AI: the concierge on the in-memory Temporal
 * with the Spring AI provider, whose OpenAI chat model talks to a fake server playing the model
 * (weather and restaurant, then a booking that needs an approval, then the final answer).
 */
class ConciergeSessionTest {
  private static final String FINAL_TEXT =
      "Done: a table for 2 at Le Petit Zinc tonight at 19:30 is booked. Sunny, 21°C.";

  private final FakeChatCompletionsServer server = new FakeChatCompletionsServer();

  @AfterEach
  void close() {
    server.close();
  }

  @Test
  void theConciergeConversation_withItsApproval_finishesWithTheModelsFinalText() {
    server.reply(
        FakeChatCompletionsServer.stream(
            toolTurn(
                "Let me check the weather and look for a table.",
                call(0, "call_W1", "get_weather", "{\"city\":\"Paris\"}"),
                call(
                    1,
                    "call_R1",
                    "find_restaurant",
                    "{\"city\":\"Paris\",\"people\":2,\"time\":\"19:30\"}"))),
        FakeChatCompletionsServer.stream(
            toolTurn(
                "Le Petit Zinc has a table at 19:30. Booking it.",
                call(
                    0,
                    "call_B1",
                    "book_table",
                    "{\"restaurant\":\"Le Petit Zinc\",\"people\":2,\"time\":\"19:30\"}"))),
        FakeChatCompletionsServer.stream(
            Wire.answer("Done: a table for 2 ", FINAL_TEXT.substring(20))));
    int bookingsBefore = ConciergeAgent.bookingCount();

    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(ConciergeAgent.create())
            .setModelProvider(SpringAiModelProvider.of(SpringAiTestModels.openAi(server)))
            .start()) {
      AgentClient client = env.client();
      RunResult paused = client.send("spring-ai-concierge", "A table for two in Paris at 19:30?");

      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      assertThat(ConciergeAgent.bookingCount())
          .as("nothing booked before the approval")
          .isEqualTo(bookingsBefore);
      client.approve("spring-ai-concierge", paused.approval().approvalId());
      RunResult finished = client.awaitRun("spring-ai-concierge");

      assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(finished.text()).isEqualTo(FINAL_TEXT);
      assertThat(ConciergeAgent.bookingCount()).isEqualTo(bookingsBefore + 1);
    }
    List<FakeChatCompletionsServer.Recorded> requests = server.requests();
    assertThat(requests).hasSize(3);
    JsonNode last = requests.get(2).json();
    assertThat(last.path("model").asText()).isEqualTo(SpringAiTestModels.DEFAULT_MODEL);
    assertThat(last.path("tools").findValuesAsText("name"))
        .containsExactlyInAnyOrder("get_weather", "find_restaurant", "book_table");
    assertThat(last.path("messages").findValuesAsText("role"))
        .containsExactly("system", "user", "assistant", "tool", "tool", "assistant", "tool");
    JsonNode booking = last.path("messages").get(6);
    assertThat(booking.path("tool_call_id").asText()).isEqualTo("call_B1");
    assertThat(booking.path("content").asText())
        .contains("\"confirmation\":\"BK-", "Le Petit Zinc");
  }

  /** One tool call's first and only fragment, at {@code index}. */
  private static String call(int index, String id, String name, String arguments) {
    return "{\"index\":"
        + index
        + ",\"id\":\""
        + id
        + "\",\"type\":\"function\",\"function\":{\"name\":\""
        + name
        + "\",\"arguments\":"
        + Wire.quote(arguments)
        + "}}";
  }

  /** A streamed turn: its text, then each tool call in a chunk of its own, then usage. */
  private static String toolTurn(String text, String... calls) {
    StringBuilder wire =
        new StringBuilder(
            Wire.chunk("{\"role\":\"assistant\",\"content\":" + Wire.quote(text) + "}", null));
    for (String call : calls) {
      wire.append(Wire.chunk("{\"tool_calls\":[" + call + "]}", null));
    }
    wire.append(Wire.chunk("{}", "tool_calls"));
    wire.append(
        "data: {\"id\":\"chatcmpl-G\",\"object\":\"chat.completion.chunk\",\"created\":1735689700,"
            + "\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[],\"usage\":{\"prompt_tokens\":180,"
            + "\"completion_tokens\":40,\"total_tokens\":220}}\n\n");
    wire.append("data: [DONE]\n\n");
    return wire.toString();
  }
}
