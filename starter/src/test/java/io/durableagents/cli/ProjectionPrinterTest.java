package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.client.Checkpoint;
import io.durableagents.client.HistoryEntry;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.RunStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code agents history} names the tool hooks that changed a call, under the entry recording it.
 */
class ProjectionPrinterTest {

  @Test
  void printHistory_namesEachHookOnceUnderTheEntryThatRecordedTheCall() {
    ToolCall refund =
        new ToolCall("call_0_0", "refund", JsonNodeFactory.instance.objectNode().put("amount", 5));
    Message user = Message.user("refund me");
    Message asked = Message.assistant(null, List.of(refund));
    Message denied =
        Message.toolResult(
            refund,
            JsonNodeFactory.instance.objectNode().put("error", "tool_denied"),
            "hook 'NoRefunds' denied: ask a human\nhook 'Audit' replaced result");
    Message answer = Message.assistant("I cannot.", null);
    List<HistoryEntry> newestFirst =
        List.of(
            entry(3, List.of(user, asked, denied, answer)),
            entry(2, List.of(user, asked, denied)),
            entry(1, List.of(user, asked)));

    StringWriter out = new StringWriter();
    ProjectionPrinter.printHistory("s-1", newestFirst, new PrintWriter(out));

    assertThat(out.toString())
        .containsOnlyOnce(
            "hooks at step 2, tool refund (call call_0_0): hook 'NoRefunds' denied: ask a human")
        .containsOnlyOnce(
            "hooks at step 2, tool refund (call call_0_0): hook 'Audit' replaced result")
        .doesNotContain("hooks at step 3")
        .doesNotContain("hooks at step 1");
  }

  private static HistoryEntry entry(int step, List<Message> messages) {
    return new HistoryEntry(
        step,
        1000L * step,
        RunStatus.IN_PROGRESS,
        Checkpoint.newBuilder()
            .setSessionId("s-1")
            .setStepIndex(step)
            .setRun(1)
            .setStatus(RunStatus.IN_PROGRESS)
            .setMessages(messages)
            .build());
  }
}
