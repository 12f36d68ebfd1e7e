package io.durableagents.client;

import io.durableagents.client.internal.RecoveryRetry;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.Trajectories;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.durableagents.workflow.internal.wire.Rejection;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SendRules;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowQueryException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.failure.ApplicationFailure;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Starts and continues agent sessions. Thread-safe; share one per process.
 *
 * <pre>{@code
 * WorkflowClient temporal = WorkflowClient.newInstance(WorkflowServiceStubs.newLocalServiceStubs());
 * AgentClient agents = AgentClient.newInstance(temporal, AgentClientOptions.newBuilder()
 *     .setProjection(ProjectionReader.open("jdbc:sqlite:.agents/projection.db"))
 *     .build());
 * RunResult first = agents.send("chat-42", "Book a table for 2 tonight");
 * if (RunStatus.AWAITING_APPROVAL.equals(first.status())) {
 *   agents.approve("chat-42", first.approval().approvalId());
 *   first = agents.awaitRun("chat-42");                         // the run goes on
 * }
 * RunResult next = agents.send("chat-42", "Make it 3 people");   // same conversation
 * }</pre>
 *
 * <p>{@code send}, {@code sendTrigger}, {@code awaitRun}, {@code approve} and {@code reject} have
 * {@code ...Async} twins answering a {@link CompletableFuture}, for servers that must not hold a
 * thread per conversation. The wait for a result ({@link WorkflowUpdateHandle#getResultAsync()})
 * holds no thread, however long the run takes; but the SDK only starts an update blocking (until
 * the workflow accepts it, usually milliseconds), so that start runs on daemon threads the client
 * owns, which end when idle. Checks made before anything is sent (the session id, the input's rules
 * and limits) throw at once, as in the blocking methods; everything else completes the future
 * exceptionally with the exception the blocking method would throw, and a session that continues as
 * new is followed there too. Cancelling a future stops nothing in the session (nor the retries
 * below): {@link #cancel} does.
 *
 * <p>While a session recovers from a worker failure (its workflow task failed or timed out
 * repeatedly), Temporal refuses requests to it; sends, waits for a run, decisions, cancels and
 * forks are retried, blocking or not, until it takes them or {@link
 * AgentClientOptions#getRecoveryTimeout()} has passed ({@link SessionRecoveringException}). Each
 * retry is the same update (one update id), which the server recognises if it applied it after all.
 */
public final class AgentClient implements AutoCloseable {
  private final WorkflowClient client;
  private final AgentClientOptions options;

  /** Starts updates for the async methods: the SDK offers no non-blocking way to start one. */
  private final ExecutorService asyncStarts;

  /** Retries requests a recovering session refuses. */
  private final RecoveryRetry recovery;

  private AgentClient(WorkflowClient client, AgentClientOptions options) {
    this.client = Objects.requireNonNull(client, "client");
    this.options = Objects.requireNonNull(options, "options");
    this.asyncStarts = newAsyncStarts();
    this.recovery = RecoveryRetry.newInstance(options.getRecoveryTimeout(), asyncStarts);
  }

  /**
   * A client of the sessions on {@code client}'s namespace. Close it when done: {@link #close()}
   * releases the threads of its async methods.
   */
  public static AgentClient newInstance(WorkflowClient client, AgentClientOptions options) {
    return new AgentClient(client, options);
  }

  /** {@link #newInstance(WorkflowClient, AgentClientOptions)} with the default options. */
  public static AgentClient newInstance(WorkflowClient client) {
    return new AgentClient(client, AgentClientOptions.getDefaultInstance());
  }

  /**
   * Threads created on demand and dropped after a minute idle; daemons, so a client that is never
   * closed does not keep the JVM alive. Unbounded, because each one only waits for Temporal to
   * accept an update, as the caller's own thread would in the blocking method.
   */
  /**
   * Releases the threads of the async methods: calls already started complete, and async calls made
   * afterwards throw {@link IllegalStateException}. The blocking methods keep working; the {@link
   * WorkflowClient} is the caller's and stays open.
   */
  @Override
  public void close() {
    asyncStarts.shutdown();
  }

  private void requireOpen() {
    if (asyncStarts.isShutdown()) {
      throw new IllegalStateException(
          "This AgentClient is closed: its async methods have no threads left");
    }
  }

  private static ExecutorService newAsyncStarts() {
    AtomicInteger threads = new AtomicInteger();
    return Executors.newCachedThreadPool(
        task -> {
          Thread thread = new Thread(task, "agent-client-async-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  /** {@link #send(String, String, SendOptions)} with default options. */
  public RunResult send(String sessionId, String input) {
    return send(sessionId, input, SendOptions.getDefaultInstance());
  }

  /**
   * Sends input to a session and returns the result of the run it belongs to, once that run
   * settles. An unknown session is started (update-with-start); a finished one continues the
   * conversation with this input as the next user turn. To wait for a run without sending anything,
   * use {@link #awaitRun}.
   *
   * <p>The input is checked before anything is sent, with the session's own rules ({@link
   * SendRules}) and {@link Limits}: a refused first send would still create the workflow. Once the
   * session took the input, nothing makes this method fail that a retry could fix without adding
   * the input again: when the projection cannot be read, the result comes without {@code messages}
   * and {@link AgentClientOptions#getProjectionFailureListener()} hears why.
   *
   * @throws IllegalArgumentException for an invalid session id or empty input
   * @throws InvalidInputException for input the session would refuse; nothing was sent
   * @throws SessionRecoveringException when the session still recovers from a worker failure once
   *     the recovery timeout has passed
   * @throws AgentClientException when the session or Temporal refuses the input
   */
  public RunResult send(String sessionId, String input, SendOptions sendOptions) {
    SendRequest request = textRequest(sessionId, input);
    return sendWithStart(sessionId, request, sendOptions);
  }

  /** {@link #sendAsync(String, String, SendOptions)} with default options. */
  public CompletableFuture<RunResult> sendAsync(String sessionId, String input) {
    return sendAsync(sessionId, input, SendOptions.getDefaultInstance());
  }

  /**
   * {@link #send(String, String, SendOptions)} without holding the caller's thread: the future
   * completes once the run settles (see the class comment for what runs where).
   *
   * @throws IllegalArgumentException for an invalid session id or empty input
   * @throws InvalidInputException for input the session would refuse; nothing was sent
   */
  public CompletableFuture<RunResult> sendAsync(
      String sessionId, String input, SendOptions sendOptions) {
    SendRequest request = textRequest(sessionId, input);
    return sendWithStartAsync(sessionId, request, sendOptions);
  }

  /** {@link #sendTrigger(String, TriggerEnvelope, SendOptions)} with default options. */
  public RunResult sendTrigger(String sessionId, TriggerEnvelope trigger) {
    return sendTrigger(sessionId, trigger, SendOptions.getDefaultInstance());
  }

  /**
   * Starts or continues a session with a run started by a trigger (a webhook, a schedule, an
   * email): the model sees a JSON block of its source, trigger and payload plus its attachments;
   * tools see the whole envelope. Otherwise like {@link #send(String, String, SendOptions)}.
   */
  public RunResult sendTrigger(String sessionId, TriggerEnvelope trigger, SendOptions sendOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(trigger, "trigger");
    return sendWithStart(sessionId, SendRequest.ofTrigger(trigger), sendOptions);
  }

  /** {@link #sendTriggerAsync(String, TriggerEnvelope, SendOptions)} with default options. */
  public CompletableFuture<RunResult> sendTriggerAsync(String sessionId, TriggerEnvelope trigger) {
    return sendTriggerAsync(sessionId, trigger, SendOptions.getDefaultInstance());
  }

  /**
   * {@link #sendTrigger(String, TriggerEnvelope, SendOptions)} without holding the caller's thread.
   */
  public CompletableFuture<RunResult> sendTriggerAsync(
      String sessionId, TriggerEnvelope trigger, SendOptions sendOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(trigger, "trigger");
    return sendWithStartAsync(sessionId, SendRequest.ofTrigger(trigger), sendOptions);
  }

  /**
   * Waits for the run in progress to settle and returns its result, or returns the last run's
   * result when none is in progress; sends nothing. For a run that goes on without a new message:
   * after {@link #approve} or {@link #reject}, a {@link #fork}, or a send made elsewhere.
   *
   * @throws IllegalArgumentException for an invalid session id
   * @throws SessionNotFoundException when there is no such session, or it never had a run
   * @throws SessionRecoveringException when the session still recovers from a worker failure once
   *     the recovery timeout has passed
   * @throws AgentClientException when Temporal refuses the request
   */
  public RunResult awaitRun(String sessionId) {
    SessionIds.requireValid(sessionId);
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
    RunResult result;
    do {
      try {
        // Empty input starts nothing: the session answers with the run in progress, once it
        // settles.
        result = recovery.call(() -> stub.send(ATTACH), e -> recovering(sessionId, e));
      } catch (RuntimeException e) {
        throw failure(sessionId, e, "Cannot wait for the run of '" + sessionId + "'", true);
      }
      // The session continued as new while we waited: attach to its next workflow run.
    } while (result != null && result.isContinued());
    return withMessages(result);
  }

  /**
   * {@link #awaitRun} without holding the caller's thread. To bound the wait, use {@link
   * CompletableFuture#orTimeout} or {@code get(timeout, unit)}: the run itself goes on.
   *
   * @throws IllegalArgumentException for an invalid session id
   */
  public CompletableFuture<RunResult> awaitRunAsync(String sessionId) {
    SessionIds.requireValid(sessionId);
    requireOpen();
    return normalized(awaitRunAsyncOnce(sessionId));
  }

  private CompletableFuture<RunResult> awaitRunAsyncOnce(String sessionId) {
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
    UpdateOptions<RunResult> accepted = update(RunResult.class, "send", ACCEPTED);
    CompletableFuture<RunResult> answer =
        updateAsync(
            sessionId,
            () -> WorkflowClient.startUpdate(stub::send, ATTACH, accepted),
            e -> failure(sessionId, e, "Cannot wait for the run of '" + sessionId + "'", true));
    return settledAsync(sessionId, answer);
  }

  /** The input of the {@code send} update that starts nothing and answers the run's result. */
  private static final SendRequest ATTACH = new SendRequest("");

  /**
   * A send's request of {@code input}. Empty input is refused here: on the wire it means "wait for
   * the run", which {@link #awaitRun} says by name.
   */
  private static SendRequest textRequest(String sessionId, String input) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(input, "input");
    SendRequest request = new SendRequest(input);
    if (request.isEmpty()) {
      throw new IllegalArgumentException(
          "send needs input; awaitRun(\""
              + sessionId
              + "\") waits for the run without sending any.");
    }
    return request;
  }

  /**
   * Checks, with the default data converter, what {@link #send(String, String, SendOptions)} checks
   * before it sends anything: for callers that want to refuse input before they connect (the CLI).
   * Empty input passes: it has nothing to check (send refuses it; {@link #awaitRun} waits without
   * input).
   *
   * @throws IllegalArgumentException for an invalid session id
   * @throws InvalidInputException for input the session would refuse
   */
  public static void requireSendable(String sessionId, String input, SendOptions sendOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(sendOptions, "sendOptions");
    SendRequest request = withRunConfig(new SendRequest(input == null ? "" : input), sendOptions);
    if (!request.isEmpty()) {
      requireSendable(
          request, sessionStart(sessionId, sendOptions), DefaultDataConverter.STANDARD_INSTANCE);
    }
  }

  /**
   * Refuses a request the session would refuse (the validator's own rules) or that is larger than
   * {@link Limits#REQUEST_BYTES} serialized, the start input included: before update-with-start,
   * because Temporal creates the workflow even when the validator then refuses the update.
   */
  static void requireSendable(SendRequest request, SessionStart start, DataConverter converter) {
    String agent = start.agent();
    if (agent != null
        && (agent.length() > Limits.AGENT_NAME_CHARS
            || agent.isBlank()
            || agent
                .codePoints()
                .anyMatch(
                    cp ->
                        Character.isISOControl(cp)
                            || Character.getType(cp) == Character.SURROGATE))) {
      throw new InvalidInputException(
          "Invalid agent name: use 1-"
              + Limits.AGENT_NAME_CHARS
              + " characters, no control characters"
              + " (got "
              + agent.length()
              + " characters).");
    }
    String problem = SendRules.problem(SendRules.inputsOf(request));
    if (problem == null) {
      problem = SendRules.runConfigProblem(request.runConfig());
    }
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    long bytes;
    try {
      bytes = serializedBytes(converter, request) + serializedBytes(converter, start);
    } catch (DataConverterException e) {
      throw new InvalidInputException("The request cannot be serialized: " + rootMessage(e), e);
    }
    if (bytes > Limits.REQUEST_BYTES) {
      throw new InvalidInputException(
          "The request is "
              + bytes
              + " bytes serialized, over the limit of "
              + Limits.REQUEST_BYTES
              + " bytes per request (escaped control characters take 6 bytes each); attach large"
              + " content as an artifact instead.");
    }
  }

  private static long serializedBytes(DataConverter converter, Object value) {
    return converter.toPayloads(value).map(Payloads::getSerializedSize).orElse(0);
  }

  private static SendRequest withRunConfig(SendRequest request, SendOptions sendOptions) {
    return sendOptions.getRunConfig() == null
        ? request
        : request.withRunConfig(sendOptions.getRunConfig());
  }

  private static SessionStart sessionStart(String sessionId, SendOptions sendOptions) {
    return new SessionStart(sessionId, sendOptions.getAgent(), sendOptions.getMaxSteps());
  }

  /** Update-with-start of {@code send}, waiting for the run to settle; follows continue-as-new. */
  private RunResult sendWithStart(String sessionId, SendRequest input, SendOptions sendOptions) {
    Objects.requireNonNull(sendOptions, "sendOptions");
    SessionStart sessionStart = sessionStart(sessionId, sendOptions);
    SendRequest request = withRunConfig(input, sendOptions);
    requireSendable(request, sessionStart, client.getOptions().getDataConverter());
    UpdateOptions<RunResult> completed = update(RunResult.class, "send", COMPLETED);
    RunResult result;
    try {
      result =
          recovery.call(
              () -> {
                AgentSessionWorkflow stub = sessionStub(sessionId, sendOptions);
                return WorkflowClient.executeUpdateWithStart(
                    stub::send,
                    request,
                    completed,
                    new WithStartWorkflowOperation<>(stub::run, sessionStart));
              },
              e -> recovering(sessionId, e));
    } catch (RuntimeException e) {
      throw failure(sessionId, e, "Temporal refused send to '" + sessionId + "'", false);
    }
    if (result != null && result.isContinued()) {
      // The session continued as new while we waited: attach to its next workflow run.
      return awaitRun(sessionId);
    }
    return withMessages(result);
  }

  /** {@link #sendWithStart}, started on the client's threads and awaited without one. */
  private CompletableFuture<RunResult> sendWithStartAsync(
      String sessionId, SendRequest input, SendOptions sendOptions) {
    Objects.requireNonNull(sendOptions, "sendOptions");
    SessionStart sessionStart = sessionStart(sessionId, sendOptions);
    SendRequest request = withRunConfig(input, sendOptions);
    requireSendable(request, sessionStart, client.getOptions().getDataConverter());
    UpdateOptions<RunResult> accepted = update(RunResult.class, "send", ACCEPTED);
    CompletableFuture<RunResult> answer =
        updateAsync(
            sessionId,
            () -> {
              // A stub and start operation serve one attempt each.
              AgentSessionWorkflow stub = sessionStub(sessionId, sendOptions);
              return WorkflowClient.startUpdateWithStart(
                  stub::send,
                  request,
                  accepted,
                  new WithStartWorkflowOperation<>(stub::run, sessionStart));
            },
            e -> failure(sessionId, e, "Temporal refused send to '" + sessionId + "'", false));
    return normalized(settledAsync(sessionId, answer));
  }

  private AgentSessionWorkflow sessionStub(String sessionId, SendOptions sendOptions) {
    WorkflowOptions workflowOptions =
        WorkflowOptions.newBuilder()
            .setWorkflowId(sessionId)
            .setTaskQueue(options.getTaskQueue())
            .setWorkflowIdConflictPolicy(
                WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setStaticSummary(staticSummary(sendOptions.getAgent()))
            .build();
    return client.newWorkflowStub(AgentSessionWorkflow.class, workflowOptions);
  }

  private static final WorkflowUpdateStage ACCEPTED = WorkflowUpdateStage.ACCEPTED;
  private static final WorkflowUpdateStage COMPLETED = WorkflowUpdateStage.COMPLETED;

  /**
   * Options of one update call, returning at {@code stage} (async methods: {@code ACCEPTED}, then
   * wait for the result without a thread). Its attempts share the update id, so the server answers
   * a retry of an update it applied with that update's outcome instead of applying it again.
   */
  private static <R> UpdateOptions<R> update(
      Class<R> resultClass, String updateName, WorkflowUpdateStage stage) {
    return UpdateOptions.newBuilder(resultClass)
        .setUpdateName(updateName)
        .setUpdateId(UUID.randomUUID().toString())
        .setWaitForStage(stage)
        .build();
  }

  /**
   * The exception of a request to {@code sessionId} refused while it recovers, past the retries.
   */
  private static RuntimeException recovering(String sessionId, RuntimeException refusal) {
    return new SessionRecoveringException(sessionId, refusal);
  }

  /**
   * Starts an update on the client's threads (the SDK starts one only blocking) and waits for its
   * result without a thread, again while the recovering session refuses it; a failure of either
   * becomes the client's exception by {@code errors}.
   */
  // The callback completes mapped on every path; the stage whenComplete returns has nothing more.
  @SuppressWarnings("FutureReturnValueIgnored")
  private <R> CompletableFuture<R> updateAsync(
      String sessionId,
      Supplier<WorkflowUpdateHandle<R>> start,
      Function<RuntimeException, RuntimeException> errors) {
    requireOpen();
    CompletableFuture<R> mapped = new CompletableFuture<>();
    recovery
        .callAsync(
            () ->
                CompletableFuture.supplyAsync(start, asyncStarts)
                    .thenCompose(WorkflowUpdateHandle::getResultAsync),
            e -> recovering(sessionId, e))
        .whenComplete(
            (value, failure) -> {
              if (failure == null) {
                mapped.complete(value);
                return;
              }
              Throwable cause = unwrap(failure);
              mapped.completeExceptionally(
                  cause instanceof RuntimeException e ? errors.apply(e) : cause);
            });
    return mapped;
  }

  /**
   * Follows a {@code continued} answer to the session's next workflow run, then adds the messages.
   */
  private CompletableFuture<RunResult> settledAsync(
      String sessionId, CompletableFuture<RunResult> answer) {
    return answer.thenCompose(
        result -> {
          if (result != null && result.isContinued()) {
            return awaitRunAsyncOnce(sessionId);
          }
          if (result == null || options.getProjection() == null) {
            return CompletableFuture.completedFuture(result);
          }
          // A database read: on the client's threads, not on the one that delivered the answer.
          return CompletableFuture.supplyAsync(() -> withMessages(result), asyncStarts);
        });
  }

  /**
   * {@code future}, completed with the cause itself rather than a {@link CompletionException}
   * around it, as a stage composed from others would be: callers see the blocking method's
   * exception in {@code exceptionally} and {@code handle}.
   */
  // The callback completes result on every path; the stage whenComplete returns has nothing more.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static <T> CompletableFuture<T> normalized(CompletableFuture<T> future) {
    CompletableFuture<T> result = new CompletableFuture<>();
    future.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(unwrap(failure));
          }
        });
    return result;
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** What Temporal's UI shows of a session from its start: its agent, never its input. */
  static String staticSummary(String agent) {
    return agent == null ? "agent session (the worker's default agent)" : "agent " + agent;
  }

  /** {@link #approve(String, String, DecisionOptions)} without a note or a name. */
  public DecisionOutcome approve(String sessionId, String approvalId) {
    return approve(sessionId, approvalId, DecisionOptions.getDefaultInstance());
  }

  /**
   * Approves a pending approval and returns at once: the gated call runs, and the run goes on
   * ({@link #awaitRun} waits for it). The session refuses an unknown or already decided approval id
   * ({@link ApprovalNotFoundException}); an approval id, note or {@code decidedBy} over its {@link
   * Limits} is refused before anything is sent ({@link InvalidInputException}).
   *
   * @throws SessionNotFoundException when there is no such session
   * @throws SessionRecoveringException when the session still recovers from a worker failure once
   *     the recovery timeout has passed; deciding again later is safe
   */
  public DecisionOutcome approve(
      String sessionId, String approvalId, DecisionOptions decisionOptions) {
    return decide(sessionId, decision(sessionId, approvalId, true, decisionOptions));
  }

  /** {@link #reject(String, String, DecisionOptions)} without a note or a name. */
  public DecisionOutcome reject(String sessionId, String approvalId) {
    return reject(sessionId, approvalId, DecisionOptions.getDefaultInstance());
  }

  /** {@link #reject(String, String, DecisionOptions)} with a note (null: none), by nobody named. */
  public DecisionOutcome reject(String sessionId, String approvalId, String note) {
    return reject(sessionId, approvalId, DecisionOptions.newBuilder().setNote(note).build());
  }

  /**
   * Rejects a pending approval and returns at once: the gated call never runs, its result is a
   * rejection carrying the note, and the run goes on ({@link #awaitRun} waits for it). Refusals as
   * for {@link #approve(String, String, DecisionOptions)}.
   */
  public DecisionOutcome reject(
      String sessionId, String approvalId, DecisionOptions decisionOptions) {
    return decide(sessionId, decision(sessionId, approvalId, false, decisionOptions));
  }

  /** {@link #approveAsync(String, String, DecisionOptions)} without a note or a name. */
  public CompletableFuture<DecisionOutcome> approveAsync(String sessionId, String approvalId) {
    return approveAsync(sessionId, approvalId, DecisionOptions.getDefaultInstance());
  }

  /**
   * {@link #approve(String, String, DecisionOptions)} without holding the caller's thread.
   *
   * @throws InvalidInputException for a decision over its limits; nothing was sent
   */
  public CompletableFuture<DecisionOutcome> approveAsync(
      String sessionId, String approvalId, DecisionOptions decisionOptions) {
    return decideAsync(sessionId, decision(sessionId, approvalId, true, decisionOptions));
  }

  /** {@link #rejectAsync(String, String, DecisionOptions)} without a note or a name. */
  public CompletableFuture<DecisionOutcome> rejectAsync(String sessionId, String approvalId) {
    return rejectAsync(sessionId, approvalId, DecisionOptions.getDefaultInstance());
  }

  /** {@link #rejectAsync(String, String, DecisionOptions)} with a note (null: none). */
  public CompletableFuture<DecisionOutcome> rejectAsync(
      String sessionId, String approvalId, String note) {
    return rejectAsync(sessionId, approvalId, DecisionOptions.newBuilder().setNote(note).build());
  }

  /**
   * {@link #reject(String, String, DecisionOptions)} without holding the caller's thread.
   *
   * @throws InvalidInputException for a decision over its limits; nothing was sent
   */
  public CompletableFuture<DecisionOutcome> rejectAsync(
      String sessionId, String approvalId, DecisionOptions decisionOptions) {
    return decideAsync(sessionId, decision(sessionId, approvalId, false, decisionOptions));
  }

  /**
   * The decision, checked before it is sent: the session would refuse it, and Temporal refuses a
   * request over its limits.
   */
  private static Decision decision(
      String sessionId, String approvalId, boolean approved, DecisionOptions decisionOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(approvalId, "approvalId");
    Objects.requireNonNull(decisionOptions, "decisionOptions");
    Decision decision =
        new Decision(
            approvalId, approved, decisionOptions.getNote(), decisionOptions.getDecidedBy());
    String problem = InputChecks.decisionProblem(decision);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    return decision;
  }

  /**
   * Sends a checked decision with update {@code approve}, which answers once it is taken. A retry
   * of a decision the session took is answered with its outcome (same update id); one the session
   * took from somebody else is refused as already decided.
   */
  private DecisionOutcome decide(String sessionId, Decision decision) {
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
    UpdateOptions<DecisionOutcome> completed = update(DecisionOutcome.class, "approve", COMPLETED);
    try {
      return recovery.call(
          () -> WorkflowClient.startUpdate(stub::approve, decision, completed).getResult(),
          e -> recovering(sessionId, e));
    } catch (RuntimeException e) {
      throw failure(sessionId, e, "Temporal refused the decision", true);
    }
  }

  private CompletableFuture<DecisionOutcome> decideAsync(String sessionId, Decision decision) {
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
    UpdateOptions<DecisionOutcome> accepted = update(DecisionOutcome.class, "approve", ACCEPTED);
    return updateAsync(
        sessionId,
        () -> WorkflowClient.startUpdate(stub::approve, decision, accepted),
        e -> failure(sessionId, e, "Temporal refused the decision", true));
  }

  /**
   * Cancels the run in progress (a no-op when none is): in-flight calls are cancelled, calls of the
   * turn without a result get {@code {"error": "cancelled"}}, the run settles {@code cancelled},
   * and the session accepts the next message.
   */
  public void cancel(String sessionId) {
    SessionIds.requireValid(sessionId);
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
    try {
      // A signal: a recovering session was not seen to refuse one, but it would be retried.
      recovery.call(
          () -> {
            stub.cancel("cancelled by client");
            return null;
          },
          e -> recovering(sessionId, e));
    } catch (WorkflowNotFoundException e) {
      throw new SessionNotFoundException(sessionId);
    } catch (WorkflowServiceException e) {
      if (isNotFound(e)) {
        throw new SessionNotFoundException(sessionId);
      }
      throw new AgentClientException("Cannot cancel '" + sessionId + "': " + rootMessage(e), e);
    }
  }

  /**
   * The client's exception for a failure of a request to {@code sessionId}: the session's refusal,
   * a session that does not exist (when {@code sessionMustExist}: the request does not create it),
   * or Temporal's refusal, described as {@code refused}. Others are returned as they are.
   */
  private static RuntimeException failure(
      String sessionId, RuntimeException e, String refused, boolean sessionMustExist) {
    if (e instanceof WorkflowUpdateException update) {
      return refusal(sessionId, update);
    }
    boolean fromTemporal =
        e instanceof WorkflowNotFoundException
            || e instanceof WorkflowServiceException
            || e instanceof StatusRuntimeException;
    if (!fromTemporal) {
      return e;
    }
    if (sessionMustExist && isNotFound(e)) {
      return new SessionNotFoundException(sessionId);
    }
    return new AgentClientException(refused + ": " + rootMessage(e), e);
  }

  /** Maps a refusal by the session workflow to the client's exceptions. */
  private static AgentClientException refusal(String sessionId, WorkflowUpdateException e) {
    Rejection rejection = Rejection.from(e);
    if (rejection == null) {
      return new AgentClientException("Session '" + sessionId + "' refused: " + rootMessage(e), e);
    }
    return switch (rejection.type()) {
      case FailureTypes.SESSION_AWAITING_APPROVAL ->
          new SessionAwaitingApprovalException(
              sessionId,
              rejection.details().size() > 1 ? rejection.details().get(1) : null,
              rejection.message());
      case FailureTypes.UNKNOWN_APPROVAL ->
          new ApprovalNotFoundException(rejection.message(), false);
      case FailureTypes.APPROVAL_ALREADY_DECIDED ->
          new ApprovalNotFoundException(rejection.message(), true);
      case FailureTypes.NO_RUN -> new SessionNotFoundException(sessionId);
      case FailureTypes.INVALID_INPUT, FailureTypes.INVALID_DECISION ->
          new InvalidInputException(rejection.message(), e);
      default -> new AgentClientException(rejection.message(), e);
    };
  }

  /**
   * Where the session is, or empty when there is no such session: no workflow, or one that never
   * had a run and has none in progress (started by a send the session refused: it waits a minute
   * for a resend, then completes).
   *
   * @throws SessionRecoveringException at once (not retried) while the session recovers from a
   *     worker failure: Temporal answers no query then
   */
  public Optional<SessionStatus> status(String sessionId) {
    SessionIds.requireValid(sessionId);
    try {
      SessionStatus status = client.newWorkflowStub(AgentSessionWorkflow.class, sessionId).status();
      if (status.run() == 0 && RunStatus.IDLE.equals(status.status())) {
        return Optional.empty();
      }
      return Optional.of(status);
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    } catch (WorkflowQueryException | WorkflowServiceException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      if (RecoveryRetry.isFailedTaskRefusal(e)) {
        throw new SessionRecoveringException(sessionId, e);
      }
      throw new AgentClientException(
          "Cannot read status of '" + sessionId + "': " + rootMessage(e), e);
    }
  }

  /**
   * The result with the conversation from the projection. The session took the input already: a
   * projection that cannot be read leaves the messages out and is reported to the listener, never
   * thrown (a caller that retries a failed send would add its input again).
   */
  private RunResult withMessages(RunResult result) {
    if (result == null || options.getProjection() == null) {
      return result;
    }
    try {
      return result.withMessages(
          options.getProjection().messages(result.sessionId(), result.messageCount()));
    } catch (AgentClientException e) {
      options.getProjectionFailureListener().accept(e);
      return result;
    }
  }

  private static boolean isNotFound(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof WorkflowNotFoundException) {
        return true;
      }
      if (t instanceof StatusRuntimeException status
          && status.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return true;
      }
    }
    return false;
  }

  static String rootMessage(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    if (cause instanceof ApplicationFailure application) {
      return application.getOriginalMessage();
    }
    if (cause instanceof WorkflowException) {
      return cause.getMessage();
    }
    return cause.getMessage() == null ? cause.toString() : cause.getMessage();
  }

  /**
   * The checkpoint history of a session from the projection, newest step first: entries {@code
   * {step, savedAt, status, checkpoint}}, each with its full checkpoint. An unknown session gives
   * an empty list. The store keeps the newest {@code historyLimit} steps of each session (default
   * 50).
   *
   * <pre>{@code
   * for (HistoryEntry entry : agents.history("chat-42", 10)) {
   *   System.out.println(entry.step() + " " + entry.status() + " "
   *       + entry.checkpoint().messages().size() + " messages");
   * }
   * }</pre>
   *
   * @param limit at most this many entries; zero or less means all that are kept
   * @throws IllegalStateException if the client was built without a {@link ProjectionReader}
   * @throws AgentClientException if the projection cannot be read
   */
  public java.util.List<HistoryEntry> history(String sessionId, int limit) {
    SessionIds.requireValid(sessionId);
    return projectionFor("history").history(sessionId, limit);
  }

  /**
   * Approvals from the projection, oldest request first, for back-office inboxes: every session's,
   * or only those that wait for a decision. Decide them with {@link #approve} or {@link #reject}.
   *
   * @throws IllegalStateException if the client was built without a {@link ProjectionReader}
   * @throws AgentClientException if the projection cannot be read
   */
  public java.util.List<ApprovalRow> approvals(boolean pendingOnly) {
    return projectionFor("approvals").approvals(pendingOnly);
  }

  private ProjectionReader projectionFor(String what) {
    ProjectionReader projection = options.getProjection();
    if (projection == null) {
      throw new IllegalStateException(
          what
              + " is read from the projection: build the client with"
              + " AgentClientOptions.newBuilder().setProjection(ProjectionReader.open(jdbcUrl))");
    }
    return projection;
  }

  /**
   * Starts a new session from a kept history entry of {@code sessionId}, with {@code patch} applied
   * (see {@link ForkPatch}); the source session and its history are not touched. The new id is
   * {@code newSessionId}, or {@code <sessionId>.fork-<n>} with the first free n. Needs the
   * projection (to find the entry) and a worker: it returns once the fork's transcript is prepared,
   * so a fork is either made or not at all. The fork's run then goes on in the background.
   *
   * <pre>{@code
   * ForkResult fork = agents.fork("chat-42", 2,
   *     ForkPatch.newBuilder().addToolResult("call_0_0", rain).build(), null);
   * RunResult rerun = agents.awaitRun(fork.sessionId());   // waits for the fork's run
   * }</pre>
   *
   * @throws CheckpointNotFoundException when the entry is not kept (the message lists the kept
   *     steps)
   * @throws InvalidInputException when the patch cannot apply to the entry or breaks a limit, or
   *     the worker refused it; nothing is created
   * @throws SessionExistsException when {@code newSessionId} is taken
   */
  public ForkResult fork(String sessionId, int fromStep, ForkPatch patch, String newSessionId) {
    SessionIds.requireValid(sessionId);
    ProjectionReader projection = requireProjection("fork");
    ForkPatch applied = patch == null ? ForkPatch.NONE : patch;
    ForkSource source = new ForkSource(sessionId, fromStep, applied);
    String problem = InputChecks.forkProblem(source);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    Checkpoint entry = projection.checkpoint(sessionId, fromStep).orElse(null);
    if (entry == null) {
      java.util.List<Integer> kept = new java.util.ArrayList<>();
      for (HistoryEntry keptEntry : projection.history(sessionId, 0)) {
        kept.add(keptEntry.step());
      }
      java.util.Collections.sort(kept);
      throw new CheckpointNotFoundException(sessionId, fromStep, kept);
    }
    String patchProblem = applied.problemWith(entry.messages());
    if (patchProblem != null) {
      throw new InvalidInputException(patchProblem);
    }
    String agent = projection.session(sessionId).map(SessionRow::agent).orElse(null);
    if (newSessionId != null) {
      SessionIds.requireValid(newSessionId);
      if (projection.session(newSessionId).isPresent()) {
        throw forkIdTaken(newSessionId);
      }
      return startFork(newSessionId, agent, source).orElseThrow(() -> forkIdTaken(newSessionId));
    }
    // Two forks of one session at once may pick the same free id: the one that loses takes the
    // next.
    for (int attempt = 1; attempt <= MAX_FORK_ID_ATTEMPTS; attempt++) {
      Optional<ForkResult> fork = startFork(firstFreeForkId(sessionId), agent, source);
      if (fork.isPresent()) {
        return fork.get();
      }
    }
    throw new AgentClientException(
        "Could not find a free fork id for '"
            + sessionId
            + "' in "
            + MAX_FORK_ID_ATTEMPTS
            + " tries (many forks at once); pass one with newSessionId.");
  }

  private static final int MAX_FORK_ID_ATTEMPTS = 20;

  private static SessionExistsException forkIdTaken(String forkId) {
    return new SessionExistsException(forkId);
  }

  /**
   * Creates the fork's workflow and waits until its transcript is prepared, in one call
   * (update-with-start). An id in use by a running session is refused by Temporal; the id of a
   * closed workflow (a refused fork or first send) may be used again. Empty when the id is taken.
   */
  private Optional<ForkResult> startFork(String forkId, String agent, ForkSource source) {
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(forkId)
            .setTaskQueue(this.options.getTaskQueue())
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
            .setMemo(
                java.util.Map.of(
                    "parentSessionId", source.parentSessionId(),
                    "parentStep", source.parentStep(),
                    "patch", source.patch().summary()))
            .setStaticSummary(
                staticSummary(agent)
                    + " · fork of "
                    + source.parentSessionId()
                    + " at step "
                    + source.parentStep())
            .build();
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, options);
    UpdateOptions<ForkOutcome> prepared = update(ForkOutcome.class, "forkPrepared", COMPLETED);
    WithStartWorkflowOperation<Void> start =
        new WithStartWorkflowOperation<>(stub::run, new SessionStart(forkId, agent, null, source));
    AtomicBoolean started = new AtomicBoolean();
    ForkOutcome outcome;
    try {
      outcome =
          recovery.call(
              () ->
                  started.getAndSet(true)
                      // Refused once the fork's workflow ran (a start that is refused fails
                      // otherwise): ask it again rather than start another.
                      ? WorkflowClient.startUpdate(
                              client.newWorkflowStub(AgentSessionWorkflow.class, forkId)
                                  ::forkPrepared,
                              prepared)
                          .getResult()
                      : WorkflowClient.executeUpdateWithStart(stub::forkPrepared, prepared, start),
              e -> recovering(forkId, e));
    } catch (io.temporal.client.WorkflowExecutionAlreadyStarted e) {
      return Optional.empty();
    } catch (WorkflowServiceException e) {
      if (isAlreadyRunning(e)) {
        return Optional.empty();
      }
      throw new AgentClientException(
          "Cannot fork '" + source.parentSessionId() + "': " + rootMessage(e), e);
    }
    if (outcome.isRefused()) {
      throw new InvalidInputException(
          "The fork of '"
              + source.parentSessionId()
              + "' at step "
              + source.parentStep()
              + " was refused: "
              + outcome.refusal());
    }
    return Optional.of(
        new ForkResult(
            forkId, source.parentSessionId(), source.parentStep(), source.patch().summary()));
  }

  /**
   * Temporal refused a start because a workflow with the id is running: update-with-start says so
   * as a status.
   */
  private static boolean isAlreadyRunning(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException status
          && status.getStatus().getCode() == Status.Code.ALREADY_EXISTS) {
        return true;
      }
    }
    return false;
  }

  /**
   * Compares two sessions' trajectories from the projection: the steps of each, where they first
   * differ (call ids ignored) and the drift between them.
   */
  public Trajectories.Comparison compare(String sessionA, String sessionB) {
    SessionIds.requireValid(sessionA);
    SessionIds.requireValid(sessionB);
    ProjectionReader projection = requireProjection("compare");
    return Trajectories.compare(
        projection.messages(sessionA, -1), finishReason(projection, sessionA),
        projection.messages(sessionB, -1), finishReason(projection, sessionB));
  }

  private static String finishReason(ProjectionReader projection, String sessionId) {
    java.util.List<HistoryEntry> latest = projection.history(sessionId, 1);
    if (latest.isEmpty()) {
      throw new SessionNotFoundException(sessionId);
    }
    return latest.get(0).checkpoint() == null ? null : latest.get(0).checkpoint().finishReason();
  }

  private ProjectionReader requireProjection(String what) {
    if (options.getProjection() == null) {
      throw new AgentClientException(
          what
              + " reads the projection: build the AgentClient with AgentClientOptions.setProjection(...).");
    }
    return options.getProjection();
  }

  private String firstFreeForkId(String sessionId) {
    for (int n = 1; ; n++) {
      String candidate = sessionId + ".fork-" + n;
      if (candidate.length() > 200) {
        throw new IllegalArgumentException(
            "Session id '" + sessionId + "' is too long to fork with a default id.");
      }
      if (!sessionExists(candidate)) {
        return candidate;
      }
    }
  }

  /** A workflow with that id exists (in any state), or the projection has rows for it. */
  private boolean sessionExists(String sessionId) {
    if (options.getProjection() != null && options.getProjection().session(sessionId).isPresent()) {
      return true;
    }
    try {
      client.newUntypedWorkflowStub(sessionId).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    } catch (WorkflowServiceException e) {
      if (isNotFound(e)) {
        return false;
      }
      throw new AgentClientException(
          "Cannot check session '" + sessionId + "': " + rootMessage(e), e);
    }
  }
}
