package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The hint of a long wait says what Temporal knows of the task queue's workers. */
class WaitHintTest {
  private static String hint(Boolean hasPollers) {
    return WaitHint.text("the run", "s1", "q", "127.0.0.1:7233", hasPollers);
  }

  @Test
  void aQueueWithAWorker_saysTheWorkerIsBusy_notMissing() {
    assertThat(hint(true))
        .isEqualTo(
            "Still waiting for the run... a worker polls task queue 'q' on 127.0.0.1:7233, so it"
                + " is busy: a long run, a run queued on its concurrency key, or a tool or MCP"
                + " server being retried ('agents status s1' shows where the session is).");
  }

  @Test
  void aQueueWithoutWorkers_orOneThatCannotBeAsked_asksWhetherOneIsPolling() {
    String missing =
        "Still waiting for the run... is a worker polling task queue 'q' on 127.0.0.1:7233?"
            + " (start one with './agents worker' or './agents dev')";
    assertThat(hint(false)).isEqualTo(missing);
    assertThat(hint(null)).isEqualTo(missing);
  }
}
