package io.durableagents.model.anthropic;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.client.AgentClient;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.AgentTestEnvironment;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The demo agent on the in-memory Temporal with this provider, against a fake Messages API that
 * plays the concierge's conversation: weather and restaurant, a booking that waits for an approval,
 * the final answer.
 */
class AnthropicConciergeSessionTest {
  static final String FINAL_ANSWER =
      "Booked: a table for 2 at Le Petit Zinc at 19:30. Sunny, 21°C: enjoy your evening.";

  /** The three answers of the concierge's conversation, as the Messages API streams them. */
  static List<String> conciergeConversation() {
    return List.of(
        Wire.toolUseAnswer(
            "Let me check the weather and look for a table.",
            182,
            41,
            new Wire.Call("toolu_weather", "get_weather", List.of("{\"city\":", " \"Paris\"}")),
            new Wire.Call(
                "toolu_find",
                "find_restaurant",
                List.of("{\"city\": \"Paris\", ", "\"people\": 2, \"time\": \"19:30\"}"))),
        Wire.toolUseAnswer(
            "Le Petit Zinc has a table at 19:30. Booking it.",
            265,
            38,
            new Wire.Call(
                "toolu_book",
                "book_table",
                List.of(
                    "{\"restaurant\": \"Le Petit Zinc\",",
                    " \"people\": 2, \"time\": \"19:30\"}"))),
        Wire.textAnswer("end_turn", FINAL_ANSWER.substring(0, 20), FINAL_ANSWER.substring(20)));
  }

  @Test
  void theConciergeBooksAfterTheApproval_andFinishesWithTheModelsAnswer() {
    try (FakeMessagesServer server = new FakeMessagesServer()) {
      conciergeConversation().forEach(wire -> server.reply(FakeMessagesServer.stream(wire)));
      AnthropicModelProvider claude =
          AnthropicModelProvider.newBuilder()
              .setBaseUrl(server.baseUrl())
              .setApiKey(FakeMessagesServer.API_KEY)
              .setModel("claude-test")
              .build();
      int bookingsBefore = ConciergeAgent.bookingCount();
      try (AgentTestEnvironment env =
          AgentTestEnvironment.newBuilder()
              .addAgent(ConciergeAgent.create())
              .setModelProvider(claude)
              .setTimeSkipping(false)
              .start()) {
        AgentClient client = env.client();

        RunResult paused = client.send("claude-1", "Dinner for two in Paris at 19:30, please.");
        assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
        assertThat(paused.approval().toolName()).isEqualTo("book_table");
        assertThat(ConciergeAgent.bookingCount()).isEqualTo(bookingsBefore);

        client.approve("claude-1", paused.approval().approvalId());
        RunResult done = client.awaitRun("claude-1");

        assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(done.text()).isEqualTo(FINAL_ANSWER);
        assertThat(ConciergeAgent.bookingCount()).isEqualTo(bookingsBefore + 1);
      }
      List<FakeMessagesServer.Recorded> requests = server.requests();
      assertThat(requests).hasSize(3);
      // The second turn sends both tool results in one user message, after the assistant's calls.
      JsonNode second = requests.get(1).json().path("messages");
      assertThat(second).hasSize(3);
      assertThat(second.get(2).path("role").asText()).isEqualTo("user");
      assertThat(second.get(2).path("content").findValuesAsText("tool_use_id"))
          .containsExactly("toolu_weather", "toolu_find");
      assertThat(second.get(2).path("content").get(0).path("content").asText()).contains("sunny");
      // The third carries the approved booking's result.
      JsonNode third = requests.get(2).json().path("messages");
      assertThat(third.get(4).path("content").get(0).path("tool_use_id").asText())
          .isEqualTo("toolu_book");
      assertThat(third.get(4).path("content").get(0).path("content").asText())
          .contains("Le Petit Zinc", "BK-");
      assertThat(requests.get(0).json().path("system").asText()).contains("concierge");
      assertThat(requests.get(0).json().path("tools").findValuesAsText("name"))
          .containsExactly("get_weather", "find_restaurant", "book_table");
    }
  }
}
