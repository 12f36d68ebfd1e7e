package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelViewTest {
  private static final long FIXED = 50;

  /** Runs of one user message, one tool call with a result of {@code resultChars}, one answer. */
  private static List<Message> conversation(int runs, int textChars, int resultChars) {
    List<Message> messages = new ArrayList<>();
    for (int run = 0; run < runs; run++) {
      messages.add(Message.user(run + ":" + "u".repeat(textChars)));
      ToolCall call =
          new ToolCall(
              "call_" + run,
              "search",
              JsonNodeFactory.instance.objectNode().put("q", "query " + run));
      messages.add(Message.assistant(null, List.of(call)));
      messages.add(
          Message.toolResult(
              call, JsonNodeFactory.instance.objectNode().put("hits", "r".repeat(resultChars))));
      messages.add(Message.assistant("answer " + run, null));
    }
    return messages;
  }

  private static ContextBudget budget(int window, CompactionPolicy... policies) {
    return new ContextBudget(window, 1_000, List.of(policies), 0.8, 0);
  }

  private static ModelView.View view(List<Message> messages, ContextBudget budget) {
    return ModelView.of(messages, FIXED, budget, budget.inputBudget(), 1.0, new MessageEstimates());
  }

  @Test
  void aConversationWithinTheThreshold_isSentWhole() {
    List<Message> messages = conversation(3, 100, 200);
    ModelView.View view = view(messages, budget(10_000, CompactionPolicy.CLEAR_TOOL_RESULTS));

    assertThat(view.messages()).isEqualTo(messages);
    assertThat(view.compactedBy()).isNull();
    assertThat(view.tokens()).isEqualTo(view.wholeTokens());
  }

  @Test
  void clearingToolResults_keepsEveryCallWithItsResult_andTheLatestResults() {
    ContextBudget budget = budget(5_000, CompactionPolicy.CLEAR_TOOL_RESULTS);
    List<Message> messages = conversation(12, 20, 1_600);
    messages.add(Message.user("the newest question"));

    ModelView.View view = view(messages, budget);

    assertThat(view.tokens()).isLessThanOrEqualTo((long) (0.8 * budget.inputBudget()));
    assertThat(view.wholeTokens()).isGreaterThan(budget.inputBudget());
    assertThat(view.messages()).hasSameSizeAs(messages);
    for (int i = 0; i < messages.size(); i++) {
      Message sent = view.messages().get(i);
      assertThat(sent.role()).isEqualTo(messages.get(i).role());
      assertThat(sent.toolCallId()).isEqualTo(messages.get(i).toolCallId());
      assertThat(sent.toolCalls()).isEqualTo(messages.get(i).toolCalls());
    }
    assertThat(view.clearedResults()).isPositive();
    // The oldest results go first; the newest is kept.
    assertThat(view.messages().get(2).result().has("cleared")).isTrue();
    assertThat(view.messages().get(2).result().get("cleared").asText()).contains("call_0");
    int lastResult = messages.size() - 3;
    assertThat(view.messages().get(lastResult)).isEqualTo(messages.get(lastResult));
  }

  @Test
  void compactionIsSticky_theNextTurnKeepsTheView_untilTheThresholdIsPassedAgain() {
    ContextBudget budget = budget(5_000, CompactionPolicy.CLEAR_TOOL_RESULTS);
    List<Message> messages = conversation(12, 20, 1_600);
    List<String> compactedAt = new ArrayList<>();
    ModelView.View previous = null;
    for (int turn = 1; turn <= messages.size(); turn++) {
      if (turn < messages.size() && messages.get(turn).role() != Role.ASSISTANT) {
        continue;
      }
      ModelView.View view = view(messages.subList(0, turn), budget);
      if (view.compactedBy() != null) {
        compactedAt.add(turn + ":" + view.compactedBy());
      } else if (previous != null) {
        // Without a compaction of its own, a turn's view is the last one's plus what came since.
        assertThat(view.messages().subList(0, previous.messages().size()))
            .isEqualTo(previous.messages());
      }
      assertThat(view.tokens()).isLessThanOrEqualTo((long) (0.8 * budget.inputBudget()));
      previous = view;
    }
    // Compactions come now and then, each making room for several turns: never one a turn.
    assertThat(compactedAt).hasSizeBetween(2, 6);
    // The same transcript gives the same view: nothing but the transcript decides it.
    assertThat(view(messages, budget)).isEqualTo(view(new ArrayList<>(messages), budget));
  }

  @Test
  void theWindowLeavesOutWholeExchanges_keepsTheRunsInput_andSaysSo() {
    ContextBudget budget =
        budget(4_000, CompactionPolicy.CLEAR_TOOL_RESULTS, CompactionPolicy.WINDOW);
    List<Message> messages = conversation(30, 1_500, 1_500);
    messages.add(Message.user("the newest question"));

    ModelView.View view = view(messages, budget);

    assertThat(view.tokens()).isLessThanOrEqualTo((long) (0.8 * budget.inputBudget()));
    assertThat(view.leftOutMessages()).isPositive();
    assertThat(view.messages().size()).isEqualTo(messages.size() - view.leftOutMessages());
    Message first = view.messages().get(0);
    assertThat(first.role()).isEqualTo(Role.USER);
    assertThat(first.text()).contains("earlier messages of this conversation are left out");
    assertThat(view.messages().get(view.messages().size() - 1).text())
        .isEqualTo("the newest question");
    assertThat(view.leftOutTurns())
        .isEqualTo(
            (int)
                (messages.stream().filter(m -> m.role() == Role.ASSISTANT).count()
                    - view.messages().stream().filter(m -> m.role() == Role.ASSISTANT).count()));
    // Every result the view keeps follows its call.
    for (int i = 0; i < view.messages().size(); i++) {
      if (view.messages().get(i).role() == Role.TOOL) {
        Message call = view.messages().get(i - 1);
        assertThat(call.role()).isEqualTo(Role.ASSISTANT);
        assertThat(call.toolCalls().get(0).id()).isEqualTo(view.messages().get(i).toolCallId());
      }
    }
  }

  @Test
  void aRunsOwnInput_isNeverLeftOut_evenWhenItsTurnsFillTheWindow() {
    ContextBudget budget =
        budget(4_000, CompactionPolicy.CLEAR_TOOL_RESULTS, CompactionPolicy.WINDOW);
    List<Message> messages = new ArrayList<>(conversation(2, 100, 100));
    Message input = Message.user("the run's own task");
    messages.add(input);
    List<Message> oneRun = conversation(20, 0, 1_200);
    for (Message message : oneRun) {
      if (message.role() != Role.USER
          && !(message.toolCalls().isEmpty() && message.role() == Role.ASSISTANT)) {
        messages.add(message);
      }
    }

    ModelView.View view = view(messages, budget);

    assertThat(view.tokens()).isLessThanOrEqualTo((long) (0.8 * budget.inputBudget()));
    assertThat(view.messages()).anyMatch(m -> m.text() != null && m.text().endsWith(input.text()));
  }

  @Test
  void aToolResultLongerThanTheLimit_isCutInTheView_withANote() {
    ContextBudget budget =
        new ContextBudget(100_000, 1_000, List.of(CompactionPolicy.CLEAR_TOOL_RESULTS), 0.8, 500);
    List<Message> messages = conversation(1, 10, 5_000);

    ModelView.View view = view(messages, budget);

    Message result = view.messages().get(2);
    assertThat(result.result().get("truncated").asText()).hasSize(500);
    assertThat(result.result().get("note").asText())
        .contains("this view shows the first 500")
        .contains("call_0");
    assertThat(view.compactedBy()).isNull();
  }

  @Test
  void anUnknownWindow_orNoPolicy_neverCompacts() {
    List<Message> messages = conversation(40, 1_500, 1_500);
    ContextBudget unknown = new ContextBudget(0, 0, List.of(CompactionPolicy.WINDOW), 0.8, 0);
    assertThat(ModelView.of(messages, FIXED, unknown, 0, 1.0, new MessageEstimates()).messages())
        .isEqualTo(messages);
    ContextBudget none = budget(4_000);
    assertThat(view(messages, none).messages()).isEqualTo(messages);
  }

  @Test
  void estimates_areKeptPerMessageObject_andWorkedOutAgainForAnotherLimit() {
    MessageEstimates estimates = new MessageEstimates();
    Message result = conversation(1, 10, 5_000).get(2);

    MessageEstimates.Estimate first = estimates.of(result, 500);
    assertThat(estimates.of(result, 500)).isSameAs(first);
    assertThat(first.shown().result().has("truncated")).isTrue();
    // An equal message of another session is another object: its own entry, the same figures.
    Message equal = result.withResult(result.result().deepCopy());
    assertThat(estimates.of(equal, 500)).isNotSameAs(first).isEqualTo(first);
    MessageEstimates.Estimate whole = estimates.of(result, Integer.MAX_VALUE);
    assertThat(whole.shown()).isSameAs(result);
    assertThat(whole.tokens()).isGreaterThan(first.tokens());
  }
}
