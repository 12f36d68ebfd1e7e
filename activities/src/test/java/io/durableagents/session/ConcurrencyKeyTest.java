package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.KeyLeases;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs that share a concurrency key run one at a time, first come first served, across sessions:
 * the waiting ones show {@code queued} with the key and their place; a run cancelled while it waits
 * leaves the queue; the key's lease completes once nobody holds or waits.
 */
class ConcurrencyKeyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Each session's gate: its tool call blocks until the test opens it. */
  private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();

  /** "start:SESSION" and "end:SESSION" in the order the tool calls ran. */
  private final List<String> timeline = new CopyOnWriteArrayList<>();

  private Tool gateTool() {
    return Tool.newBuilder("gate")
        .setDescription("Waits until the test opens the session's gate.")
        .setHandler(
            (args, ctx) -> {
              timeline.add("start:" + ctx.sessionId());
              gates
                  .computeIfAbsent(ctx.sessionId(), id -> new CountDownLatch(1))
                  .await(60, TimeUnit.SECONDS);
              timeline.add("end:" + ctx.sessionId());
              return Map.of("opened", true);
            })
        .build();
  }

  private SessionTestKit kit() {
    return new SessionTestKit(
        dir,
        Scripts.of("{'turns':[{'toolCalls':[{'name':'gate','arguments':{}}]},{'text':'done'}]}"),
        agent ->
            agent
                .setMaxSteps(5)
                .setTools(gateTool())
                .setConcurrencyKey(
                    trigger -> "customer:" + trigger.keys().path("customerId").asText()),
        WorkerFactoryOptions.newBuilder());
  }

  private static CompletableFuture<RunResult> send(
      SessionTestKit kit, String sessionId, SendRequest request) {
    return CompletableFuture.supplyAsync(
        () ->
            SessionUpdates.sendWithStart(
                kit.client,
                SessionTestKit.TASK_QUEUE,
                request,
                new SessionStart(sessionId, null, null)));
  }

  private static CompletableFuture<RunResult> sendKeyed(
      SessionTestKit kit, String sessionId, String key) {
    return send(kit, sessionId, new SendRequest("work").withConcurrencyKey(key));
  }

  private void open(String sessionId) {
    gates.computeIfAbsent(sessionId, id -> new CountDownLatch(1)).countDown();
  }

  private void awaitStarted(String sessionId) {
    await().atMost(WAIT).until(() -> timeline.contains("start:" + sessionId));
  }

  private static SessionStatus awaitQueued(SessionTestKit kit, String sessionId, int place) {
    await()
        .atMost(WAIT)
        .until(
            () -> {
              SessionStatus status = kit.session(sessionId).status();
              return status.status() == RunStatus.QUEUED
                  && Integer.valueOf(place).equals(status.queuePlace());
            });
    return kit.session(sessionId).status();
  }

  @Test
  void runsSharingAKey_runOneAtATimeInArrivalOrder_andQueuedOnesShowKeyAndPlace() throws Exception {
    try (SessionTestKit kit = kit()) {
      CompletableFuture<RunResult> a = sendKeyed(kit, "ck-a", "repo:1");
      awaitStarted("ck-a");
      CompletableFuture<RunResult> b = sendKeyed(kit, "ck-b", "repo:1");
      SessionStatus queuedB = awaitQueued(kit, "ck-b", 1);
      CompletableFuture<RunResult> c = sendKeyed(kit, "ck-c", "repo:1");
      awaitQueued(kit, "ck-c", 2);
      // Another key is not held up by this one.
      CompletableFuture<RunResult> other = sendKeyed(kit, "ck-other", "repo:2");
      awaitStarted("ck-other");
      open("ck-other");
      assertThat(other.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);

      assertThat(queuedB.concurrencyKey()).isEqualTo("repo:1");
      KeyLeases leases =
          kit.client
              .newWorkflowStub(
                  ConcurrencyKeyWorkflow.class, ConcurrencyKeyWorkflow.workflowId("repo:1"))
              .leases();
      assertThat(leases.placeOf("ck-a", 1)).isZero();
      assertThat(leases.placeOf("ck-b", 1)).isEqualTo(1);
      assertThat(leases.placeOf("ck-c", 1)).isEqualTo(2);
      assertThat(timeline).doesNotContain("start:ck-b", "start:ck-c");

      open("ck-a");
      open("ck-b");
      open("ck-c");
      assertThat(a.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(b.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(c.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      List<String> keyed = timeline.stream().filter(e -> !e.endsWith("ck-other")).toList();
      assertThat(keyed)
          .containsExactly(
              "start:ck-a", "end:ck-a", "start:ck-b", "end:ck-b", "start:ck-c", "end:ck-c");
      assertLeaseCompleted(kit, "repo:1");
    }
  }

  @Test
  void aRunCancelledWhileQueued_settlesCancelled_andLeavesTheQueue() throws Exception {
    try (SessionTestKit kit = kit()) {
      CompletableFuture<RunResult> a = sendKeyed(kit, "cq-a", "k");
      awaitStarted("cq-a");
      CompletableFuture<RunResult> b = sendKeyed(kit, "cq-b", "k");
      awaitQueued(kit, "cq-b", 1);
      CompletableFuture<RunResult> c = sendKeyed(kit, "cq-c", "k");
      awaitQueued(kit, "cq-c", 2);

      kit.session("cq-b").cancel("not needed any more");

      assertThat(b.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.CANCELLED);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  kit.client
                          .newWorkflowStub(
                              ConcurrencyKeyWorkflow.class, ConcurrencyKeyWorkflow.workflowId("k"))
                          .leases()
                          .placeOf("cq-c", 1)
                      == 1);
      open("cq-a");
      open("cq-c");
      assertThat(a.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(c.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(timeline).containsExactly("start:cq-a", "end:cq-a", "start:cq-c", "end:cq-c");
      assertLeaseCompleted(kit, "k");
    }
  }

  @Test
  void aRunWhoseLeaseCannotBeAskedFor_endsWhenCancelled() throws Exception {
    try (SessionTestKit kit = kit()) {
      // Something that no worker runs holds the workflow id of key 'stuck''s lock: asking for
      // the lease never gets an answer.
      kit.client
          .newUntypedWorkflowStub(
              "NoSuchWorkflow",
              io.temporal.client.WorkflowOptions.newBuilder()
                  .setWorkflowId(ConcurrencyKeyWorkflow.workflowId("stuck"))
                  .setTaskQueue("nobody-polls")
                  .build())
          .start();
      CompletableFuture<RunResult> run = sendKeyed(kit, "cs-a", "stuck");
      await()
          .atMost(WAIT)
          .ignoreExceptions() // the send may not have started the session yet
          .until(() -> kit.session("cs-a").status().concurrencyKey() != null);

      kit.session("cs-a").cancel("the key's lock does not answer");

      assertThat(run.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(timeline).isEmpty();
    }
  }

  @Test
  void theAgentsDefaultKey_comesFromTheTrigger_andASentKeyWinsOverIt() throws Exception {
    try (SessionTestKit kit = kit()) {
      TriggerEnvelope trigger =
          TriggerEnvelope.newBuilder()
              .setId("evt-1")
              .setSource("email")
              .setTrigger("invoice.received")
              .setPayload(JSON.readTree("{\"amount\":120}"))
              .setKeys(JSON.readTree("{\"customerId\":\"c-9\"}"))
              .build();
      CompletableFuture<RunResult> a = send(kit, "ct-a", SendRequest.ofTrigger(trigger));
      awaitStarted("ct-a");
      CompletableFuture<RunResult> b = send(kit, "ct-b", SendRequest.ofTrigger(trigger));
      assertThat(awaitQueued(kit, "ct-b", 1).concurrencyKey()).isEqualTo("customer:c-9");
      CompletableFuture<RunResult> sentKey =
          send(kit, "ct-c", SendRequest.ofTrigger(trigger).withConcurrencyKey("own"));
      awaitStarted("ct-c");
      assertThat(kit.session("ct-c").status().concurrencyKey()).isEqualTo("own");

      open("ct-a");
      open("ct-b");
      open("ct-c");
      assertThat(a.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(b.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(sentKey.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      assertThat(timeline.indexOf("start:ct-b")).isGreaterThan(timeline.indexOf("end:ct-a"));
    }
  }

  @Test
  void aRunCancelledWhileHoldingTheLease_givesItBack_andQueuesAgainWhenResumed() throws Exception {
    try (SessionTestKit kit = kit()) {
      CompletableFuture<RunResult> a = sendKeyed(kit, "cr-a", "k2");
      awaitStarted("cr-a");
      kit.session("cr-a").cancel("test");
      assertThat(a.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.CANCELLED);

      // The cancelled run gave the lease back: the next run of the key starts at once.
      CompletableFuture<RunResult> b = sendKeyed(kit, "cr-b", "k2");
      awaitStarted("cr-b");
      // The same text again resumes the cancelled run, which queues behind the holder.
      CompletableFuture<RunResult> resumed = sendKeyed(kit, "cr-a", "k2");
      assertThat(awaitQueued(kit, "cr-a", 1).concurrencyKey()).isEqualTo("k2");
      open("cr-b");
      assertThat(b.get(30, TimeUnit.SECONDS).status()).isEqualTo(RunStatus.FINISHED);
      RunResult again = resumed.get(30, TimeUnit.SECONDS);
      assertThat(again.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(again.run()).as("the cancelled run resumed").isEqualTo(1);
      assertLeaseCompleted(kit, "k2");
    }
  }

  private static void assertLeaseCompleted(SessionTestKit kit, String key) {
    await()
        .atMost(WAIT)
        .until(
            () ->
                kit.client
                        .newUntypedWorkflowStub(ConcurrencyKeyWorkflow.workflowId(key))
                        .describe()
                        .getStatus()
                    == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  }
}
