package io.durableagents.client;

import static io.durableagents.client.FailedTaskRefusals.QUERY;
import static io.durableagents.client.FailedTaskRefusals.SIGNAL;
import static io.durableagents.client.FailedTaskRefusals.UPDATE;
import static io.durableagents.client.FailedTaskRefusals.UPDATE_WITH_START;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.grpc.Status;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code AgentClient} against a session refused as a real server refuses it while its workflow task
 * is in a failed state: every call that talks to the session is retried with one update id until it
 * is taken, and past the recovery timeout the caller gets {@link SessionRecoveringException}, never
 * gRPC's words. Refusals come from {@link FailedTaskRefusals} on the client's connection to
 * Temporal's in-process test server; the worker's connection is not touched. {@code
 * FailedTaskRecoveryIT} (worker-app) shows the same against the real server.
 */
class AgentClientRecoveryTest {
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "paying", "toolCalls": [{"name": "pay", "arguments": {"amount": 500}}]},
        {"text": "paid"},
        {"text": "and again"},
        {"text": "forked"}
      ]}
      """;

  @TempDir Path dir;

  private TestWorkflowEnvironment env;
  private CheckpointStore store;
  private ProjectionReader projection;
  private WorkflowServiceStubs refusingService;
  private final FailedTaskRefusals refusals = new FailedTaskRefusals();
  private final AtomicInteger payments = new AtomicInteger();

  /** A client through {@link #refusals}; the worker's own client is left alone. */
  private AgentClient agents;

  /** A client straight to the server, for what another caller does meanwhile. */
  private AgentClient direct;

  @BeforeEach
  void start() {
    String url = "jdbc:sqlite:" + dir.resolve("projection.db");
    store = CheckpointStore.of(AgentStores.open(url));
    Agent agent =
        Agent.newBuilder("payer")
            .setModel("scripted")
            .setTools(
                Tool.newBuilder("pay")
                    .setDescription("Pays; always needs approval.")
                    .setInputSchema("{\"type\":\"object\"}")
                    .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                    .setHandler((args, ctx) -> Map.of("paid", payments.incrementAndGet()))
                    .build())
            .build();
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent)
                .setModelProvider(ScriptedModelProvider.fromJson(SCRIPT))
                .setStore(store)
                .build());
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                .build());
    env.newWorker(AgentClientOptions.DEFAULT_TASK_QUEUE);
    env.start();
    projection = ProjectionReader.open(url);
    refusingService =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder()
                .setChannel(env.getWorkflowServiceStubs().getRawChannel())
                .setGrpcClientInterceptors(List.of(refusals))
                .build());
    agents = client(AgentClientOptions.DEFAULT_RECOVERY_TIMEOUT);
    direct =
        AgentClient.newInstance(
            env.getWorkflowClient(),
            AgentClientOptions.newBuilder().setProjection(projection).build());
  }

  private AgentClient client(Duration recoveryTimeout) {
    WorkflowClient refused =
        WorkflowClient.newInstance(
            refusingService,
            WorkflowClientOptions.newBuilder().setNamespace(env.getNamespace()).build());
    return AgentClient.newInstance(
        refused,
        AgentClientOptions.newBuilder()
            .setProjection(projection)
            .setRecoveryTimeout(recoveryTimeout)
            .build());
  }

  @AfterEach
  void close() {
    if (refusingService != null) {
      refusingService.shutdownNow();
    }
    if (env != null) {
      env.close();
    }
    if (projection != null) {
      projection.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private String pausedApproval(String sessionId) {
    RunResult paused = direct.send(sessionId, "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    return paused.approval().approvalId();
  }

  private static List<String> updateIds(List<FailedTaskRefusals.Call> calls) {
    return calls.stream().map(FailedTaskRefusals.Call::updateId).distinct().toList();
  }

  @Test
  void approve_refusedWhileTheTaskFails_isRetriedAsOneUpdate_untilTaken() {
    String approvalId = pausedApproval("retry-approve");
    refusals.refuse(UPDATE, 3);

    DecisionOutcome outcome = agents.approve("retry-approve", approvalId);

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    List<FailedTaskRefusals.Call> calls = refusals.calls(UPDATE);
    assertThat(calls).hasSize(4);
    assertThat(calls)
        .extracting(FailedTaskRefusals.Call::refused)
        .containsExactly(true, true, true, false);
    assertThat(updateIds(calls)).singleElement().isNotNull();
    assertThat(direct.awaitRun("retry-approve").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(payments).hasValue(1);
  }

  @Test
  void approve_whoseAnswerWasLost_isAnsweredWithTheOutcomeOfTheUpdateThatLanded() {
    String approvalId = pausedApproval("lost-approve");
    refusals.loseAnswers(UPDATE, 1);

    DecisionOutcome outcome = agents.approve("lost-approve", approvalId);

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(outcome.approvalId()).isEqualTo(approvalId);
    assertThat(refusals.calls(UPDATE)).hasSize(2);
    assertThat(updateIds(refusals.calls(UPDATE))).hasSize(1);
    assertThat(direct.awaitRun("lost-approve").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(payments).hasValue(1);
  }

  @Test
  void approve_decidedBySomebodyElseWhileRefused_isReportedAlreadyDecided() {
    String approvalId = pausedApproval("raced-approve");
    refusals
        .refuse(UPDATE, 1)
        .onRefusal(() -> direct.reject("raced-approve", approvalId, "not today"));

    assertThatThrownBy(() -> agents.approve("raced-approve", approvalId))
        .isInstanceOfSatisfying(
            ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isTrue());
    assertThat(refusals.calls(UPDATE)).hasSize(2);
    assertThat(payments).hasValue(0);
  }

  @Test
  void send_refused_isRetriedAsOneUpdate_andTheInputIsTakenOnce() {
    String approvalId = pausedApproval("retry-send");
    direct.approve("retry-send", approvalId);
    assertThat(direct.awaitRun("retry-send").status()).isEqualTo(RunStatus.FINISHED);
    refusals.refuse(UPDATE_WITH_START, 2);

    RunResult next = agents.send("retry-send", "once more");

    assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(next.text()).isEqualTo("and again");
    assertThat(refusals.calls(UPDATE_WITH_START)).hasSize(3);
    assertThat(updateIds(refusals.calls(UPDATE_WITH_START))).hasSize(1);
    assertThat(next.messages())
        .filteredOn(message -> "once more".equals(message.text()))
        .hasSize(1);
  }

  @Test
  void theAsyncMethods_areRetriedToo() throws Exception {
    String approvalId = pausedApproval("retry-async");
    refusals.refuse(UPDATE, 2);

    DecisionOutcome outcome =
        agents.approveAsync("retry-async", approvalId).get(1, TimeUnit.MINUTES);
    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(updateIds(refusals.calls(UPDATE))).hasSize(1);

    refusals.refuse(UPDATE, 1);
    assertThat(agents.awaitRunAsync("retry-async").get(1, TimeUnit.MINUTES).status())
        .isEqualTo(RunStatus.FINISHED);

    refusals.refuse(UPDATE_WITH_START, 2);
    RunResult next = agents.sendAsync("retry-async", "once more").get(1, TimeUnit.MINUTES);
    assertThat(next.text()).isEqualTo("and again");
    assertThat(refusals.calls(UPDATE_WITH_START)).hasSize(3);
    assertThat(updateIds(refusals.calls(UPDATE_WITH_START))).hasSize(1);
  }

  @Test
  void pastTheRecoveryTimeout_theCallerGetsSessionRecovering_inTheProductsWords() throws Exception {
    String approvalId = pausedApproval("recovering");
    AgentClient impatient = client(Duration.ofMillis(500));
    refusals.refuse(UPDATE, Integer.MAX_VALUE).refuse(UPDATE_WITH_START, Integer.MAX_VALUE);

    long start = System.nanoTime();
    Throwable approve = catchFailure(() -> impatient.approve("recovering", approvalId));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertRecovering(approve, "recovering");
    assertThat(took).isBetween(Duration.ofMillis(500), Duration.ofSeconds(10));
    assertThat(refusals.calls(UPDATE).size()).isGreaterThan(1);

    assertRecovering(failureOf(impatient.approveAsync("recovering", approvalId)), "recovering");
    assertRecovering(catchFailure(() -> impatient.awaitRun("recovering")), "recovering");
    assertRecovering(catchFailure(() -> impatient.send("recovering", "hello?")), "recovering");
    assertRecovering(failureOf(impatient.sendAsync("recovering", "hello?")), "recovering");

    // The session took nothing: it still waits for the same decision.
    assertThat(direct.status("recovering").orElseThrow().approval().approvalId())
        .isEqualTo(approvalId);
    assertThat(payments).hasValue(0);
  }

  @Test
  void status_isNotRetried_butSaysTheSessionIsRecovering() {
    pausedApproval("status-recovering");
    refusals.refuse(QUERY, Integer.MAX_VALUE);

    assertRecovering(catchFailure(() -> agents.status("status-recovering")), "status-recovering");
    assertThat(refusals.calls(QUERY)).hasSize(1);
  }

  @Test
  void cancel_refused_isRetried() {
    pausedApproval("cancel-refused");
    refusals.refuse(SIGNAL, 2);

    agents.cancel("cancel-refused");

    assertThat(refusals.calls(SIGNAL)).hasSize(3);
    assertThat(direct.awaitRun("cancel-refused").status()).isEqualTo(RunStatus.CANCELLED);
  }

  @Test
  void otherFailedPreconditions_areNotRetried() {
    String approvalId = pausedApproval("other-refusal");
    refusals.refuse(
        UPDATE,
        1,
        Status.FAILED_PRECONDITION.withDescription(
            "Unable to perform workflow execution update due to unexpected workflow task"
                + " failure."));

    Throwable failure = catchFailure(() -> agents.approve("other-refusal", approvalId));

    assertThat(failure)
        .isInstanceOf(AgentClientException.class)
        .isNotInstanceOf(SessionRecoveringException.class);
    assertThat(refusals.calls(UPDATE)).hasSize(1);
  }

  @Test
  void aForkWhoseAnswerWasLost_isAskedAgain_notStartedTwice() {
    String approvalId = pausedApproval("fork-source");
    direct.approve("fork-source", approvalId);
    assertThat(direct.awaitRun("fork-source").status()).isEqualTo(RunStatus.FINISHED);
    int step = projection.history("fork-source", 1).get(0).step();
    refusals.loseAnswers(UPDATE_WITH_START, 1);

    ForkResult fork =
        agents.fork(
            "fork-source", step, ForkPatch.newBuilder().setAppendInput("and?").build(), null);

    assertThat(fork.sessionId()).isEqualTo("fork-source.fork-1");
    assertThat(refusals.calls(UPDATE_WITH_START)).hasSize(1);
    assertThat(refusals.calls(UPDATE)).hasSize(1);
    assertThat(updateIds(refusals.calls(UPDATE)))
        .containsExactlyElementsOf(updateIds(refusals.calls(UPDATE_WITH_START)));
    assertThat(direct.awaitRun("fork-source.fork-1").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(direct.status("fork-source.fork-2")).isEmpty();
  }

  private static void assertRecovering(Throwable failure, String sessionId) {
    assertThat(failure)
        .isInstanceOfSatisfying(
            SessionRecoveringException.class, e -> assertThat(e.sessionId()).isEqualTo(sessionId))
        .hasMessageContaining("'" + sessionId + "' is recovering from a worker failure")
        .hasRootCauseInstanceOf(io.grpc.StatusRuntimeException.class);
    assertThat(failure.getMessage())
        .doesNotContain("FAILED_PRECONDITION", "io.grpc", "StatusRuntimeException", "failed state");
  }

  private static Throwable catchFailure(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }

  private static Throwable failureOf(CompletableFuture<?> future) throws InterruptedException {
    try {
      future.get(1, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within a minute", e);
    }
    throw new AssertionError("expected a failure");
  }
}
