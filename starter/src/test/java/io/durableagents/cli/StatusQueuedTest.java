package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.session.RunStatus;
import io.durableagents.workflow.SessionStatus;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** {@code agents status} of a run that waits for its concurrency key, and of one that holds it. */
class StatusQueuedTest {

  private static String printed(SessionStatus status) {
    StringWriter out = new StringWriter();
    StatusCommand.print(status, new PrintWriter(out));
    return out.toString();
  }

  @Test
  void aQueuedRun_showsItsKeyAndPlace() {
    String shown =
        printed(
            SessionStatus.newBuilder()
                .setSessionId("chat-7")
                .setAgent("concierge")
                .setStatus(RunStatus.QUEUED)
                .setRun(2)
                .setConcurrencyKey("customer:42")
                .setQueuePlace(3)
                .build());

    assertThat(shown)
        .startsWith("chat-7 (agent concierge): queued")
        .contains("  waiting for concurrency key 'customer:42' at place 3 (1: next to run)");
  }

  @Test
  void aRunHoldingItsKey_showsTheKeyOnly() {
    String shown =
        printed(
            SessionStatus.newBuilder()
                .setSessionId("chat-8")
                .setStatus(RunStatus.IN_PROGRESS)
                .setRun(1)
                .setConcurrencyKey("customer:42")
                .build());

    assertThat(shown).contains("  concurrency key: customer:42").doesNotContain("waiting");
  }
}
