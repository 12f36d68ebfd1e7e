package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRecoveringException;
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
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.workflow.Workflow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session whose workflow task is in a failed state, on the real dev server: what the server
 * answers then (the table of docs/errors.md, "Recovering sessions"), and {@link AgentClient}
 * waiting through it. A worker interceptor fails every workflow task of a "poisoned" session (an
 * {@link Error} from the handler of a {@code decide} signal the test sends), as a worker killed
 * again and again would; the Java SDK reports the first failure and lets later attempts time out
 * (10 s), so the task reaches attempt 3, where the server refuses updates, about 10 s after the
 * poison. Lifting the poison lets the next attempt complete: the session recovers. A client
 * interceptor counts the refusals the client hears, and can lose the answer to an update the server
 * applied.
 */
class FailedTaskRecoveryIT {
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "paying", "toolCalls": [{"name": "pay", "arguments": {}}]},
        {"text": "paid"},
        {"text": "and again"}
      ]}
      """;
  private static final String UPDATE_REFUSAL =
      "Unable to perform workflow execution update due to Workflow Task in failed state.";
  private static final String QUERY_REFUSAL =
      "Unable to query workflow due to Workflow Task in failed state.";
  private static final String POISON_PILL = "poison-pill";

  /** Long enough for the poison to fail two attempts and a timeout, and for the recovery. */
  private static final Duration TASK_STATE_WITHIN = Duration.ofSeconds(40);

  /** Sessions whose workflow tasks fail while they are here. */
  private static final Set<String> POISONED = ConcurrentHashMap.newKeySet();

  @TempDir static Path dir;
  private static TemporalDevServer server;
  private static WorkflowServiceStubs workerService;
  private static WorkerFactory factory;
  private static CheckpointStore store;
  private static ProjectionReader projection;
  private static WorkflowServiceStubs clientService;
  private static WorkflowClient temporal;
  private static final Refusals refusals = new Refusals();

  /** The application's client: default options but the projection. */
  private static AgentClient agents;

  @BeforeAll
  static void start() throws Exception {
    server = RealTemporal.start(Files.createDirectories(dir.resolve("server")));
    String url = "jdbc:sqlite:" + dir.resolve("projection.db");
    store = CheckpointStore.of(AgentStores.open(url));
    workerService = AgentWorker.connect(server.address());
    Agent payer =
        Agent.newBuilder("payer")
            .setTools(
                Tool.newBuilder("pay")
                    .setDescription("Pays; always needs approval.")
                    .setInputSchema("{\"type\": \"object\"}")
                    .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                    .setHandler((args, ctx) -> Map.of("paid", true))
                    .build())
            .build();
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(payer)
                .setModelProvider(ScriptedModelProvider.fromJson(SCRIPT))
                .setStore(store)
                .build());
    factory =
        WorkerFactory.newInstance(
            WorkflowClient.newInstance(workerService),
            WorkerFactoryOptions.newBuilder()
                .setPlugins(plugin)
                .setWorkerInterceptors(new Poison())
                .build());
    factory.newWorker(AgentClientOptions.DEFAULT_TASK_QUEUE);
    factory.start();
    clientService =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder()
                .setTarget(server.address())
                .setGrpcClientInterceptors(List.of(refusals))
                .build());
    temporal = WorkflowClient.newInstance(clientService);
    projection = ProjectionReader.open(url);
    agents =
        AgentClient.newInstance(
            temporal, AgentClientOptions.newBuilder().setProjection(projection).build());
  }

  @AfterAll
  static void stop() {
    if (factory != null) {
      factory.shutdownNow();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
    for (WorkflowServiceStubs service : new WorkflowServiceStubs[] {clientService, workerService}) {
      if (service != null) {
        service.shutdownNow();
      }
    }
    if (projection != null) {
      projection.close();
    }
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void whileTheTaskFails_theServerRefusesUpdatesAndQueries_andApproveWaitsUntilItRecovers()
      throws Exception {
    RunResult paused = agents.send("recover-approve", "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    String approvalId = paused.approval().approvalId();
    AgentSessionWorkflow session =
        temporal.newWorkflowStub(AgentSessionWorkflow.class, "recover-approve");

    poison("recover-approve");
    awaitTask("recover-approve", "at attempt 2", attempt -> attempt == 2);
    // Sent while the second attempt runs: admitted, then refused once that attempt times out.
    long earlySent = System.nanoTime();
    CompletableFuture<DecisionOutcome> early =
        CompletableFuture.supplyAsync(
            () ->
                WorkflowClient.startUpdate(
                        session::approve,
                        new Decision(approvalId, true, null, "early"),
                        completed(DecisionOutcome.class, "approve"))
                    .getResult());
    awaitTask("recover-approve", "in a failed state", attempt -> attempt >= 3);

    assertThat(failureOf(early)).satisfies(refusal(UPDATE_REFUSAL));
    report("an update sent at attempt 2 was refused after %d ms", millisSince(earlySent));
    assertThat(
            failureOf(() -> session.approve(new Decision("no-such-approval", true, null, "probe"))))
        .satisfies(refusal(UPDATE_REFUSAL));
    assertThat(failureOf(() -> sendWithStart("recover-approve", "more")))
        .satisfies(refusal(UPDATE_REFUSAL));
    assertThat(failureOf(session::status)).satisfies(refusal(QUERY_REFUSAL));
    assertThat(temporal.newUntypedWorkflowStub("recover-approve").describe().getStatus())
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);

    // The client's words, never gRPC's: status at once, a decision once its retries ran out.
    assertRecovering(failureOf(() -> agents.status("recover-approve")), "recover-approve");
    AgentClient impatient =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder().setRecoveryTimeout(Duration.ofSeconds(2)).build());
    long start = System.nanoTime();
    Throwable gaveUp = failureOf(() -> impatient.approve("recover-approve", approvalId));
    assertRecovering(gaveUp, "recover-approve");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofSeconds(2));
    report("approve with a 2 s recovery timeout gave up after %d ms", millisSince(start));
    AgentsProcesses.Result cli;
    try (AgentsProcesses processes = new AgentsProcesses(dir)) {
      cli =
          processes.run(
              Duration.ofSeconds(60), "status", "recover-approve", "--temporal", server.address());
    }
    assertThat(cli.exitCode()).as(cli.err()).isEqualTo(1);
    assertThat(cli.err())
        .contains("Session 'recover-approve' is recovering from a worker failure")
        .doesNotContain("FAILED_PRECONDITION", "StatusRuntimeException", "failed state");

    // approve waits, refused again and again, until the session recovers.
    int refusedBefore = refusals.count();
    long started = System.nanoTime();
    CompletableFuture<DecisionOutcome> approving =
        CompletableFuture.supplyAsync(() -> agents.approve("recover-approve", approvalId));
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !approving.isDone());
    assertThat(refusals.count()).isGreaterThan(refusedBefore + 1);
    POISONED.remove("recover-approve");
    long lifted = System.nanoTime();

    DecisionOutcome outcome = approving.get(TASK_STATE_WITHIN.toSeconds(), TimeUnit.SECONDS);
    report(
        "approve waited %d ms, refused %d times, answered %d ms after the poison was lifted",
        millisSince(started), refusals.count() - refusedBefore, millisSince(lifted));
    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(outcome.approvalId()).isEqualTo(approvalId);
    // Approved by this call, a new update: the early decision was not applied after all (the
    // session would have refused this one as already decided).
    RunResult finished = agents.awaitRun("recover-approve");
    assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(finished.text()).isEqualTo("paid");
    assertThat(finished.toolCalls())
        .singleElement()
        .satisfies(call -> assertThat(call.result().has("paid")).isTrue());
  }

  @Test
  void aSendRefusedWhileTheTaskFails_isTakenOnce_whenItRecovers() throws Exception {
    RunResult paused = agents.send("recover-send", "pay the bill");
    agents.approve("recover-send", paused.approval().approvalId());
    assertThat(agents.awaitRun("recover-send").status()).isEqualTo(RunStatus.FINISHED);

    poison("recover-send");
    awaitTask("recover-send", "in a failed state", attempt -> attempt >= 3);
    int refusedBefore = refusals.count();
    long started = System.nanoTime();
    CompletableFuture<RunResult> sending =
        CompletableFuture.supplyAsync(() -> agents.send("recover-send", "once more"));
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !sending.isDone());
    assertThat(refusals.count()).isGreaterThan(refusedBefore + 1);
    POISONED.remove("recover-send");
    long lifted = System.nanoTime();

    RunResult next = sending.get(TASK_STATE_WITHIN.toSeconds(), TimeUnit.SECONDS);
    report(
        "send waited %d ms, refused %d times, answered %d ms after the poison was lifted",
        millisSince(started), refusals.count() - refusedBefore, millisSince(lifted));
    assertThat(next.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(next.text()).isEqualTo("and again");
    assertThat(next.messages())
        .filteredOn(message -> "once more".equals(message.text()))
        .hasSize(1);
  }

  @Test
  void aCancel_isASignal_takenWhileTheTaskFails() throws Exception {
    agents.send("recover-cancel", "pay the bill");
    poison("recover-cancel");
    awaitTask("recover-cancel", "in a failed state", attempt -> attempt >= 3);
    int refusedBefore = refusals.count();
    long started = System.nanoTime();

    agents.cancel("recover-cancel");
    report("cancel returned after %d ms", millisSince(started));

    assertThat(refusals.count()).isEqualTo(refusedBefore);
    // The signal is a new event: the next task starts again at attempt 1 (and fails again).
    awaitTask("recover-cancel", "started again", attempt -> attempt > 0 && attempt < 3);
    POISONED.remove("recover-cancel");
    assertThat(agents.awaitRun("recover-cancel").status()).isEqualTo(RunStatus.CANCELLED);
  }

  @Test
  void aDecisionWhoseAnswerWasLost_isAnsweredWithItsOutcome_whenRetried() {
    RunResult paused = agents.send("lost-answer", "pay the bill");
    String approvalId = paused.approval().approvalId();
    int refusedBefore = refusals.count();
    refusals.loseNextUpdateAnswer();

    // The server applied the decision; the client heard a refusal, and retries the same update.
    DecisionOutcome outcome = agents.approve("lost-answer", approvalId);

    assertThat(refusals.count()).isEqualTo(refusedBefore + 1);
    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(outcome.approvalId()).isEqualTo(approvalId);
    assertThat(agents.awaitRun("lost-answer").status()).isEqualTo(RunStatus.FINISHED);
  }

  // ---- the poison and the task's state --------------------------------------------------------

  /** Fails the workflow tasks of {@link #POISONED} sessions from the poison pill's signal on. */
  static final class Poison extends WorkerInterceptorBase {
    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
      return new WorkflowInboundCallsInterceptorBase(next) {
        @Override
        public void handleSignal(SignalInput input) {
          if (input.getArguments().length > 0
              && input.getArguments()[0] instanceof Decision decision
              && POISON_PILL.equals(decision.approvalId())
              && POISONED.contains(Workflow.getInfo().getWorkflowId())) {
            throw new Error("poisoned workflow task");
          }
          super.handleSignal(input);
        }
      };
    }
  }

  /** Sends the poison pill; every workflow task of the session fails until it is lifted. */
  private static void poison(String sessionId) {
    POISONED.add(sessionId);
    temporal
        .newWorkflowStub(AgentSessionWorkflow.class, sessionId)
        .decide(new Decision(POISON_PILL, true, null, null));
  }

  /**
   * Waits until the attempt of the session's pending workflow task (0: none) passes {@code test}; 3
   * and over is the failed state.
   */
  private static void awaitTask(String sessionId, String state, IntPredicate test) {
    await("workflow task of " + sessionId + " " + state)
        .atMost(TASK_STATE_WITHIN)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> test.test(pendingAttempt(sessionId)));
  }

  private static int pendingAttempt(String sessionId) {
    DescribeWorkflowExecutionResponse described =
        clientService
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace(temporal.getOptions().getNamespace())
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(sessionId))
                    .build());
    return described.hasPendingWorkflowTask() ? described.getPendingWorkflowTask().getAttempt() : 0;
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  private static void report(String format, Object... args) {
    System.out.println(
        "FailedTaskRecoveryIT: " + String.format(java.util.Locale.ROOT, format, args));
  }

  // ---- requests as any client sends them ------------------------------------------------------

  private static RunResult sendWithStart(String sessionId, String input) {
    AgentSessionWorkflow stub =
        temporal.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(sessionId)
                .setTaskQueue(AgentClientOptions.DEFAULT_TASK_QUEUE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
    return WorkflowClient.executeUpdateWithStart(
        stub::send,
        new SendRequest(input),
        completed(RunResult.class, "send"),
        new WithStartWorkflowOperation<>(stub::run, new SessionStart(sessionId, null, null)));
  }

  private static <R> UpdateOptions<R> completed(Class<R> resultClass, String name) {
    return UpdateOptions.newBuilder(resultClass)
        .setUpdateName(name)
        .setUpdateId(UUID.randomUUID().toString())
        .setWaitForStage(WorkflowUpdateStage.COMPLETED)
        .build();
  }

  private static java.util.function.Consumer<Throwable> refusal(String description) {
    return failure -> {
      StatusRuntimeException status = statusOf(failure);
      assertThat(status).as("gRPC status in %s", failure).isNotNull();
      assertThat(status.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
      assertThat(status.getStatus().getDescription()).isEqualTo(description);
    };
  }

  private static StatusRuntimeException statusOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StatusRuntimeException status) {
        return status;
      }
    }
    return null;
  }

  private static void assertRecovering(Throwable failure, String sessionId) {
    assertThat(failure)
        .isInstanceOf(SessionRecoveringException.class)
        .hasMessageContaining("'" + sessionId + "' is recovering from a worker failure");
    assertThat(failure.getMessage())
        .doesNotContain("FAILED_PRECONDITION", "io.grpc", "StatusRuntimeException", "failed state");
  }

  private static Throwable failureOf(Supplier<?> call) {
    try {
      var unused = call.get();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }

  private static Throwable failureOf(CompletableFuture<?> future) throws InterruptedException {
    try {
      future.get(TASK_STATE_WITHIN.toSeconds(), TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer within " + TASK_STATE_WITHIN, e);
    }
    throw new AssertionError("expected a failure");
  }

  /**
   * Counts the client's calls the server answered with FAILED_PRECONDITION; on request, loses the
   * answer to the next update, which reaches the server, and answers it with the refusal instead.
   */
  static final class Refusals implements ClientInterceptor {
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicBoolean loseNextUpdateAnswer = new AtomicBoolean();

    int count() {
      return refused.get();
    }

    void loseNextUpdateAnswer() {
      loseNextUpdateAnswer.set(true);
    }

    @Override
    public <Q, A> ClientCall<Q, A> interceptCall(
        MethodDescriptor<Q, A> method, CallOptions callOptions, Channel next) {
      boolean lose =
          method.getFullMethodName().endsWith("/UpdateWorkflowExecution")
              && loseNextUpdateAnswer.compareAndSet(true, false);
      return new ForwardingClientCall.SimpleForwardingClientCall<>(
          next.newCall(method, callOptions)) {
        @Override
        public void start(Listener<A> listener, Metadata headers) {
          super.start(
              new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onMessage(A message) {
                  if (!lose) {
                    super.onMessage(message);
                  }
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                  Status answered =
                      lose && status.isOk()
                          ? Status.FAILED_PRECONDITION.withDescription(UPDATE_REFUSAL)
                          : status;
                  if (answered.getCode() == Status.Code.FAILED_PRECONDITION) {
                    refused.incrementAndGet();
                  }
                  super.onClose(answered, trailers);
                }
              },
              headers);
        }
      };
    }
  }
}
