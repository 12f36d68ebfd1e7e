package io.durableagents.workflow.internal.wire;

import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One agent session. The workflow id is the session id; the workflow lives as long as the
 * conversation and runs one agent loop per message it is sent.
 *
 * <p>Payloads are plain JSON, so any Temporal SDK can drive a session: start it with {@link
 * SessionStart}, send with update {@code send} ({@link SendRequest} in, {@link RunResult} out),
 * decide approvals with signal {@code decide} or update {@code approve} ({@link Decision}), cancel
 * the run in progress with signal {@code cancel}, read it with query {@code status}. A fork is
 * started with update {@code forkPrepared}, which tells its creator whether it could be made; so is
 * the workflow of a reset ({@link SessionStart#reset}).
 */
@WorkflowInterface
public interface AgentSessionWorkflow {

  /** Workflow type name, stable across versions. */
  String WORKFLOW_TYPE = "AgentSession";

  /**
   * Runs the session until it closes. A sub-agent session ({@link SessionStart#subAgentOf()}) runs
   * its one task and answers that run's result; any other session answers null.
   */
  @WorkflowMethod(name = WORKFLOW_TYPE)
  RunResult run(SessionStart start);

  /**
   * Starts or continues a run with the given input and returns that run's result once it settles.
   * Use it with update-with-start so the first message creates the session.
   */
  @UpdateMethod(name = "send")
  RunResult send(SendRequest request);

  @UpdateValidatorMethod(updateName = "send")
  void validateSend(SendRequest request);

  /**
   * Decides a pending approval. A decision for an unknown, already decided or expired approval is
   * ignored and logged: a late or duplicate signal is never fatal.
   */
  @SignalMethod(name = "decide")
  void decide(Decision decision);

  /**
   * Decides a pending approval and answers the outcome; unlike the signal, it refuses an unknown
   * ({@code unknown_approval}) or already decided ({@code approval_already_decided}) id.
   */
  @UpdateMethod(name = "approve")
  DecisionOutcome approve(Decision decision);

  @UpdateValidatorMethod(updateName = "approve")
  void validateApprove(Decision decision);

  /**
   * Cancels the run in progress: in-flight activities are cancelled, calls of the turn without a
   * result get {@code {"error": "cancelled"}}, the run settles {@code cancelled}. Ignored when no
   * run is in progress.
   */
  @SignalMethod(name = "cancel")
  void cancel(String reason);

  /**
   * For the client that creates a fork, sent with its start (update-with-start): answers once the
   * fork's transcript is prepared, with the fork's status, or with the reason it could not be made
   * (a patch that does not apply to the entry, a limit, an entry no longer kept); a refused fork's
   * workflow then completes and leaves no session. On a reset's workflow it answers once the
   * session is moved back, or with the reason it was not (the session then goes on from its newest
   * entry). On any other session it answers its status once it is restored from the store.
   */
  @UpdateMethod(name = "forkPrepared")
  ForkOutcome forkPrepared();

  /**
   * Closes the session: sends accepted before it still run, later ones are refused ({@code
   * session_closing}); the run in progress finishes (with {@link CloseRequest#force()}, it is
   * cancelled); then the worker marks the session closed in the store (or removes its rows, for a
   * delete) and the workflow completes. Answers the closed session's status. Refused without force
   * while an approval is pending ({@code close_needs_force}). A later send starts the session
   * again, under the same id, from its last entry.
   */
  @UpdateMethod(name = "close")
  SessionStatus close(CloseRequest request);

  @UpdateValidatorMethod(updateName = "close")
  void validateClose(CloseRequest request);

  /**
   * From a sub-agent session below this one: one of its approvals opened or closed. The session
   * shows it as its own wait (status {@code awaiting_approval}, the approval with the asking
   * session's id) and passes a decision for it on to the asking session.
   */
  @SignalMethod(name = "subAgentApproval")
  void subAgentApproval(SubAgentApproval notice);

  @QueryMethod(name = "status")
  SessionStatus status();

  /**
   * From the lease of a concurrency key ({@link ConcurrencyKeyWorkflow}): the run {@code grant}
   * names holds the key's lease and may go on. A grant for a run that does not wait for it (it
   * settled, or was cancelled while queued) is given back at once.
   */
  @SignalMethod(name = "leaseGranted")
  void leaseGranted(LeaseRequest grant);
}
