package io.durableagents.client;

import io.durableagents.client.internal.ClientCalls;
import io.durableagents.client.internal.DecisionCalls;
import io.durableagents.client.internal.ForkCalls;
import io.durableagents.client.internal.LifecycleCalls;
import io.durableagents.client.internal.ResetCalls;
import io.durableagents.client.internal.SendChecks;
import io.durableagents.client.internal.SessionCalls;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.Trajectories;
import io.durableagents.workflow.TriggerEnvelope;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowUpdateHandle;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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
 *
 * <p>One entry point for every role (sessions, decisions, forks and history), each implemented by
 * its own class; the async methods share one executor that {@link #close()} releases.
 */
public final class AgentClient implements AutoCloseable {
  private final ClientCalls calls;
  private final SessionCalls sessions;
  private final DecisionCalls decisions;
  private final ForkCalls forks;
  private final LifecycleCalls lifecycle;
  private final ResetCalls resets;

  private AgentClient(WorkflowClient client, AgentClientOptions options) {
    this.calls =
        ClientCalls.newInstance(
            Objects.requireNonNull(client, "client"), Objects.requireNonNull(options, "options"));
    this.sessions = new SessionCalls(calls);
    this.decisions = new DecisionCalls(calls);
    this.forks = new ForkCalls(calls);
    this.lifecycle = new LifecycleCalls(calls, sessions);
    this.resets = new ResetCalls(calls, lifecycle);
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
   * Releases the threads of the async methods: calls already started complete, and async calls made
   * afterwards throw {@link IllegalStateException}. The blocking methods keep working; the {@link
   * WorkflowClient} is the caller's and stays open.
   */
  @Override
  public void close() {
    calls.close();
  }

  /** {@link #send(String, String, SendOptions)} with default options. */
  public RunResult send(String sessionId, String input) {
    return send(sessionId, input, SendOptions.getDefaultInstance());
  }

  /**
   * Sends input to a session and returns the result of the run it belongs to, once that run
   * settles. An unknown session is started (update-with-start); a finished one continues the
   * conversation with this input as the next user turn. When the last run failed or was cancelled
   * and this send repeats its input (within {@link SendOptions.Builder#setResumeWindow the resume
   * window}, or with {@link SendOptions.Builder#setIdempotencyKey its idempotency key}), that run
   * resumes with the budget it has left instead, and this returns its result. To wait for a run
   * without sending anything, use {@link #awaitRun}.
   *
   * <p>The input is checked before anything is sent, with the session's own rules and {@link
   * Limits}: a refused first send would still create the workflow. Once the session took the input,
   * nothing makes this method fail that a retry could fix without adding the input again: when the
   * projection cannot be read, the result comes without {@code messages} and {@link
   * AgentClientOptions#getProjectionFailureListener()} hears why.
   *
   * @throws IllegalArgumentException for an invalid session id or empty input
   * @throws InvalidInputException for input or start options the session would refuse; nothing was
   *     sent
   * @throws SessionExistsException when {@code sendOptions} has an agent or maxSteps, which only
   *     the send that starts a session takes, and the session exists with others; nothing was sent
   * @throws SessionRecoveringException when the session still recovers from a worker failure once
   *     the recovery timeout has passed
   * @throws AgentClientException when the session or Temporal refuses the input
   */
  public RunResult send(String sessionId, String input, SendOptions sendOptions) {
    return sessions.send(sessionId, input, sendOptions);
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
    return sessions.sendAsync(sessionId, input, sendOptions);
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
    return sessions.sendTrigger(sessionId, trigger, sendOptions);
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
    return sessions.sendTriggerAsync(sessionId, trigger, sendOptions);
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
    return sessions.awaitRun(sessionId);
  }

  /**
   * {@link #awaitRun} without holding the caller's thread. To bound the wait, use {@link
   * CompletableFuture#orTimeout} or {@code get(timeout, unit)}: the run itself goes on.
   *
   * @throws IllegalArgumentException for an invalid session id
   */
  public CompletableFuture<RunResult> awaitRunAsync(String sessionId) {
    return sessions.awaitRunAsync(sessionId);
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
    SendChecks.requireSendable(sessionId, input, sendOptions);
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
    return decisions.decide(sessionId, approvalId, true, decisionOptions);
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
    return decisions.decide(sessionId, approvalId, false, decisionOptions);
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
    return decisions.decideAsync(sessionId, approvalId, true, decisionOptions);
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
    return decisions.decideAsync(sessionId, approvalId, false, decisionOptions);
  }

  /**
   * Cancels the run in progress (a no-op when none is): in-flight calls are cancelled, calls of the
   * turn without a result get {@code {"error": "cancelled"}}, the run settles {@code cancelled},
   * and the session accepts the next message.
   */
  public void cancel(String sessionId) {
    sessions.cancel(sessionId);
  }

  /**
   * Closes the session: sends accepted before the close still run, the run in progress finishes,
   * then the worker marks the session closed in the projection and its workflow completes (which
   * lets the worker deployment version it was pinned to drain). The projection keeps everything; a
   * later {@link #send} starts the session again under the same id from its last entry, with its
   * transcript and business state. A session already closed answers its status.
   *
   * @return the session's status, {@link io.durableagents.session.SessionLifecycle#CLOSED}
   * @throws SessionAwaitingApprovalException while an approval is pending: decide it, or {@link
   *     #close(String, boolean) close with force}
   * @throws SessionNotFoundException when there is no such session
   */
  public SessionStatus close(String sessionId) {
    return lifecycle.close(sessionId, false);
  }

  /**
   * {@link #close(String)}; with {@code force}, a run in progress (one paused on an approval
   * included) is cancelled first and its approval settled as cancelled.
   */
  public SessionStatus close(String sessionId, boolean force) {
    return lifecycle.close(sessionId, force);
  }

  /**
   * Moves the session back to its own history entry {@code step}, under the same id: its workflow
   * is closed (as by {@link #close(String)}: a run in progress finishes first), then a new workflow
   * goes on from the entry's transcript, business state and token totals. The later entries stay in
   * the history, each marked with the reset that superseded it ({@link
   * HistoryEntry#supersededBy()}), and their transcripts with them; new runs and entries are
   * numbered after them. The entry is checked before anything changes. Needs the projection.
   *
   * <pre>{@code
   * agents.reset("chat-42", 2);                       // back to the entry of step 2
   * RunResult next = agents.send("chat-42", "Try again, shorter.");
   * }</pre>
   *
   * @return the session's status, {@link SessionStatus#resetTo()} {@code step}
   * @throws CheckpointNotFoundException when the session has no kept entry at {@code step} (the
   *     message lists those it has); nothing is changed
   * @throws InvalidInputException when the entry was itself superseded by an earlier reset
   * @throws SessionAwaitingApprovalException while an approval is pending: decide it, or {@link
   *     #reset(String, int, boolean) reset with force}
   * @throws SessionNotFoundException when the projection has no such session
   */
  public SessionStatus reset(String sessionId, int step) {
    return resets.reset(sessionId, step, false);
  }

  /**
   * {@link #reset(String, int)}; with {@code force}, a run in progress (one paused on an approval
   * included) is cancelled first and its approval settled as cancelled, instead of finishing.
   */
  public SessionStatus reset(String sessionId, int step, boolean force) {
    return resets.reset(sessionId, step, force);
  }

  /**
   * Deletes the session: closes it, has the worker remove its projection rows (its checkpoint
   * history, and the transcript it refers to, kept when {@code keepHistory}), then deletes its
   * workflow executions from Temporal, so that {@link #status} answers empty. Refused while an
   * approval is pending; see {@link #delete(String, boolean, boolean)}.
   *
   * @throws SessionAwaitingApprovalException while an approval is pending
   * @throws SessionNotFoundException when neither Temporal nor the projection knows the session
   */
  public void delete(String sessionId, boolean keepHistory) {
    lifecycle.delete(sessionId, keepHistory, false);
  }

  /**
   * {@link #delete(String, boolean)}; with {@code force}, a run in progress (one paused on an
   * approval included) is cancelled first and its approval settled as cancelled.
   */
  public void delete(String sessionId, boolean keepHistory, boolean force) {
    lifecycle.delete(sessionId, keepHistory, force);
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
    return sessions.status(sessionId);
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
  public List<HistoryEntry> history(String sessionId, int limit) {
    return forks.history(sessionId, limit);
  }

  /**
   * Approvals from the projection, oldest request first, for back-office inboxes: every session's,
   * or only those that wait for a decision. Decide them with {@link #approve} or {@link #reject}.
   *
   * @throws IllegalStateException if the client was built without a {@link ProjectionReader}
   * @throws AgentClientException if the projection cannot be read
   */
  public List<ApprovalRow> approvals(boolean pendingOnly) {
    return forks.approvals(pendingOnly);
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
   * @throws IllegalStateException if the client was built without a {@link ProjectionReader}
   */
  public ForkResult fork(String sessionId, int fromStep, ForkPatch patch, String newSessionId) {
    return forks.fork(sessionId, fromStep, patch, newSessionId);
  }

  /**
   * Compares two sessions' trajectories from the projection: the steps of each, where they first
   * differ (call ids ignored) and the drift between them.
   *
   * @throws SessionNotFoundException when the projection has no entry of either session
   * @throws IllegalStateException if the client was built without a {@link ProjectionReader}
   */
  public Trajectories.Comparison compare(String sessionA, String sessionB) {
    return forks.compare(sessionA, sessionB);
  }
}
