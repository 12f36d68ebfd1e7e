package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.workflow.RunResult;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent's approval notifier is retried until it accepts, and notifiedAt is recorded. */
class ApprovalNotifierTest {
  @TempDir Path dir;

  @Test
  void aFlakyNotifier_isRetriedUntilItAccepts_andNotifiedAtIsRecorded() {
    AtomicInteger calls = new AtomicInteger();
    List<Approval> delivered = new CopyOnWriteArrayList<>();
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':500}}]},{'text':'paid'}]}"),
            agent ->
                agent
                    .setMaxSteps(10)
                    .setApprovalNotifier(
                        (sessionId, name, approval) -> {
                          if (calls.incrementAndGet() < 3) {
                            throw new IllegalStateException("inbox unavailable");
                          }
                          delivered.add(approval);
                        }),
            WorkerFactoryOptions.newBuilder())) {
      RunResult paused = kit.send("notify-1", "pay");
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

      await("the notifier accepted")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> !delivered.isEmpty());
      assertThat(delivered)
          .singleElement()
          .satisfies(a -> assertThat(a.approvalId()).isEqualTo(paused.approval().approvalId()));
      assertThat(calls.get()).isEqualTo(3);
      await("notifiedAt of the approval recorded")
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(20))
          .pollDelay(Duration.ZERO)
          .untilAsserted(
              () ->
                  assertThat(kit.store.approvals("notify-1", true).get(0).notifiedAt())
                      .isPositive());
    }
  }

  @Test
  void aNotificationTheStoreCannotRecord_isRecordedOnceItIsBack_withoutNotifyingAgain() {
    List<Approval> delivered = new CopyOnWriteArrayList<>();
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':500}}]},{'text':'paid'}]}"),
            agent ->
                agent.setMaxSteps(10).setApprovalNotifier((sessionId, name, a) -> delivered.add(a)),
            WorkerFactoryOptions.newBuilder())) {
      kit.failStoreCalls("markApprovalNotified", 2);
      RunResult paused = kit.send("notify-2", "pay");
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

      await("notifiedAt of the approval recorded")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .untilAsserted(
              () ->
                  assertThat(kit.store.approvals("notify-2", true).get(0).notifiedAt())
                      .isPositive());
      assertThat(kit.storeCalls.get("markApprovalNotified")).hasValue(3);
      assertThat(delivered).hasSize(1);
    }
  }
}
