package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.session.Approval;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.durableagents.workflow.internal.wire.Rejection;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SendRules;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.durableagents.workflow.internal.wire.SubAgentApproval;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The session workflow: waits for input, runs the agent loop for it ({@link AgentRun}: model turn,
 * tool batch, checkpoint after each), settles the run and waits for the next message.
 *
 * <p>Handlers only record input and decisions (in the {@link Session}'s parts) and wait; the loop
 * itself runs in the workflow method, so handlers never race on activities.
 *
 * <p>On a worker that uses Temporal's worker versioning with the default behaviour {@code PINNED},
 * each workflow run is pinned to the worker deployment version it started on; between runs, once a
 * newer version is the deployment's target, the session continues as new onto it ({@link
 * Handover#newVersionAvailable}). The behaviour is the worker's default rather than an annotation
 * here: a real server refuses a workflow task that names a behaviour from a worker without
 * versioning.
 */
public class AgentSessionWorkflowImpl implements AgentSessionWorkflow {
  private static final Logger log = Workflow.getLogger(AgentSessionWorkflowImpl.class);

  /**
   * How long a session started without its first send waits for one before it completes, leaving no
   * session behind.
   */
  static final Duration FIRST_SEND_GRACE = Duration.ofMinutes(1);

  private final SessionStart start;
  private final Session session;

  @WorkflowInit
  public AgentSessionWorkflowImpl(SessionStart start) {
    this.start = start == null ? new SessionStart(null, null, null) : start;
    this.session = new Session(this.start);
    if (this.start.continued() != null) {
      session.restore(this.start.continued());
    }
  }

  @Override
  public RunResult run(SessionStart ignored) {
    session.useStableIds(
        Workflow.getVersion(ChangeIds.STABLE_IDS, Workflow.DEFAULT_VERSION, 1)
            != Workflow.DEFAULT_VERSION);
    boolean fresh = start.fork() == null && start.continued() == null;
    if (fresh && session.subAgents.isSubAgent()) {
      // A sub-agent session's one input is the task its parent's model gave it.
      session.inbox.queue(List.of(Message.user(session.subAgents.origin().task())), null, null);
    } else if (fresh && start.resetTo() == null && !awaitFirstSend()) {
      // A reset's workflow comes with no send: its creator waits on update forkPrepared.
      log.info(
          "{} completes without a session: no send reached it within {}",
          session.id(),
          FIRST_SEND_GRACE);
      return null;
    }
    boolean lifecycle =
        Workflow.getVersion(ChangeIds.SESSION_LIFECYCLE, Workflow.DEFAULT_VERSION, 1)
            != Workflow.DEFAULT_VERSION;
    if (fresh && lifecycle && !new SessionRestore(session).restore()) {
      return null;
    }
    session.lifecycle.restored();
    session.show();
    if (start.fork() != null) {
      if (!new ForkStart(session).prepareAndRun()) {
        return null;
      }
    } else if (start.continued() != null && start.continued().run() != null) {
      session.execute(new AgentRun(session, start.continued().run()));
      if (session.subAgents.isSubAgent()) {
        return finishTask();
      }
    }
    while (true) {
      awaitWork(lifecycle);
      if (session.lifecycle.closing() && !hasWork()) {
        // Sends accepted before the close, whose handlers have not queued their input yet, run
        // first.
        letOtherHandlersRun();
        if (!hasWork()) {
          new SessionClosing(session).close();
          return null;
        }
      }
      if (session.handover.newVersionAvailable() && session.handover.upgradeOnContinueAsNew()) {
        // Idle, pinned to an older version: the queued input goes over to the new version's run.
        session.continueAsNew(() -> null);
      }
      if (!session.inbox.hasQueued() && !session.resumes.requested()) {
        session.continueAsNew(() -> null);
      }
      AgentRun run;
      if (session.resumes.requested()) {
        run = new AgentRun(session, session.resumes.take(), session.results.last());
      } else {
        JsonNode runConfig = session.inbox.takeRunConfig();
        String idempotencyKey = session.inbox.takeIdempotencyKey();
        List<Message> inputs = session.inbox.takeQueued();
        session.resumes.runStarted(inputs, idempotencyKey);
        run = new AgentRun(session, inputs, runConfig);
        run.requestConcurrencyKey(session.inbox.takeConcurrencyKey());
      }
      run.adoptTrigger(session.inbox.takeTrigger());
      String cancelled = session.inbox.takeCancelBeforeRun();
      if (cancelled != null) {
        run.cancel(cancelled);
      }
      session.execute(run);
      if (session.subAgents.isSubAgent()) {
        return finishTask();
      }
    }
  }

  /**
   * A sub-agent session's end: its one run settled, it closes (its rows stay, marked closed) and
   * answers that run's result to its parent.
   */
  private RunResult finishTask() {
    RunResult result = session.results.last();
    session.lifecycle.taskFinished();
    new SessionClosing(session).close();
    return result;
  }

  /** Input queued by a send, or a failed or cancelled run a send asked to resume. */
  private boolean hasWork() {
    return session.inbox.hasQueued() || session.resumes.requested();
  }

  /**
   * Waits for input, a hand-over or a close. From {@link ChangeIds#SESSION_LIFECYCLE} on, for at
   * most the agent's idle timeout (one durable timer per idle period): when it fires with nothing
   * to do, the session closes itself.
   */
  private void awaitWork(boolean lifecycle) {
    Supplier<Boolean> work =
        () ->
            hasWork()
                || session.handover.due()
                || session.handover.newVersionAvailable()
                || session.lifecycle.closing();
    if (!lifecycle) {
      Workflow.await(work);
      return;
    }
    // A send whose handler has not queued its input yet starts no timer.
    letOtherHandlersRun();
    if (work.get()) {
      return;
    }
    // Cancelled when work comes first, so that no timer of a past idle period is left to fire.
    Promise<?>[] timer = new Promise<?>[1];
    CancellationScope idle =
        Workflow.newCancellationScope(
            () ->
                timer[0] = Workflow.newTimer(session.lifecycle.idleTimeout(session.state.spec())));
    idle.run();
    // Cancelled when work comes first: an end of the wait, not a failure to report.
    timer[0].exceptionally(cancelled -> null);
    Workflow.await(() -> timer[0].isCompleted() || work.get());
    if (!timer[0].isCompleted()) {
      idle.cancel();
      return;
    }
    // A send that arrives in the task in which the timer fires is taken, not refused by a close.
    letOtherHandlersRun();
    if (!work.get()) {
      log.info(
          "{} closes itself: idle for {}",
          session.id(),
          session.lifecycle.idleTimeout(session.state.spec()));
      session.lifecycle.idleTimedOut();
    }
  }

  /**
   * A workflow started by an update-with-start whose send it did not get: the validator refused it
   * (Temporal creates the workflow before it validates the update), or the send was lost with a
   * first workflow task that never completed (its worker was killed before accepting it) and the
   * client sends it again. Waits {@link #FIRST_SEND_GRACE} for a send, so a resent one is taken by
   * this workflow: completing at once would have the resend start a new workflow, and its calls new
   * idempotency keys, although their side effects may have happened under the old ones.
   *
   * <p>The wait's timer takes the next value of the run's random sequence, from which the SDK also
   * draws the ids of local activities. When the send came with the first task, that value is drawn
   * all the same: the local activities that a lost first task ran, and that run again for the
   * resend, get the same ids as before.
   */
  private boolean awaitFirstSend() {
    if (receivedInput()) {
      if (session.stableIds()) {
        Workflow.randomUUID();
      }
      return true;
    }
    if (Workflow.await(
        FIRST_SEND_GRACE, () -> session.handover.anyUpdate() || session.inbox.hasQueued())) {
      return true;
    }
    if (!session.stableIds()) {
      return false;
    }
    // A send that arrives in the task in which the timer fires has its handler run after this
    // thread woke up: taken, not left running while the workflow completes.
    letOtherHandlersRun();
    return session.handover.anyUpdate() || session.inbox.hasQueued();
  }

  /**
   * True when the workflow's first task brought an accepted send. The SDK runs the update handlers
   * of that task in the same pass as the workflow method; yielding once lets them run first.
   */
  private boolean receivedInput() {
    letOtherHandlersRun();
    return session.handover.anyUpdate() || session.inbox.hasQueued();
  }

  @Override
  public ForkOutcome forkPrepared() {
    Workflow.await(
        () ->
            (!session.state.preparingFork() && !session.lifecycle.restoring())
                || session.forkRefusal() != null);
    return session.forkRefusal() != null
        ? new ForkOutcome(session.forkRefusal(), null)
        : new ForkOutcome(null, status());
  }

  // ---- send -------------------------------------------------------------------------------

  @Override
  public void validateSend(SendRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("send needs a request");
    }
    List<Message> inputs = Inbox.newInputs(request, session.state.transcript());
    String problem = SendRules.requestProblem(request, inputs);
    if (problem != null) {
      throw Rejection.failure(FailureTypes.INVALID_INPUT, problem);
    }
    if (!inputs.isEmpty() && session.lifecycle.closing()) {
      throw Rejection.failure(
          FailureTypes.SESSION_CLOSING,
          "Session '"
              + session.id()
              + "' is closing: it takes no more input. Send again once it is closed, which starts"
              + " it again from its last entry.",
          session.id());
    }
    Approval pending = session.waitingApproval();
    if (!inputs.isEmpty() && pending != null && !repeatsRunInput(inputs)) {
      throw Rejection.failure(
          FailureTypes.SESSION_AWAITING_APPROVAL,
          "Session '"
              + session.id()
              + "' is awaiting approval "
              + pending.approvalId()
              + " for tool '"
              + pending.toolName()
              + "'; decide it before sending input.",
          session.id(),
          pending.approvalId());
    }
    if (inputs.isEmpty()
        && !session.state.preparingFork()
        && session.state.activeRun() == 0
        && !session.inbox.hasQueued()
        && session.results.last() == null) {
      throw Rejection.failure(
          FailureTypes.NO_RUN,
          "Session '" + session.id() + "' has no run yet: send a non-empty input first.");
    }
  }

  /**
   * Whether every input is the input that started the run in progress: a client's retry of the send
   * whose answer it lost (its worker was killed), which is answered as the run stands, paused
   * included, rather than refused.
   */
  private boolean repeatsRunInput(List<Message> inputs) {
    AgentRun current = session.currentRun();
    return current != null
        && session.state.activeRun() != 0
        && inputs.stream().allMatch(input -> input.equals(current.startInput()));
  }

  @Override
  public RunResult send(SendRequest request) {
    session.handover.updateReceived();
    session.inbox.sendArriving();
    int target;
    try {
      Workflow.await(() -> !session.state.preparingFork() && !session.lifecycle.restoring());
      target = accept(request);
    } finally {
      session.inbox.sendTaken(session.resumes.requested());
    }
    if (target == 0) {
      return session.results.last();
    }
    Workflow.await(() -> answerable(target));
    if (!session.results.hasSettled(target) && !session.handover.continuing()) {
      // The SDK runs update handlers before the signal handlers of the same workflow task: let a
      // cancel or decision that arrived with this update act before the pause is reported.
      letOtherHandlersRun();
      Workflow.await(() -> answerable(target));
    }
    if (session.results.hasSettled(target)) {
      return session.results.of(target);
    }
    AgentRun current = session.currentRun();
    if (session.handover.continuing()) {
      RunResult progress = current != null ? current.progressResult() : session.results.last();
      return progress == null ? null : progress.markContinued();
    }
    return current.pausedResult();
  }

  /**
   * Takes a send's input: interjected into the active run, or queued for the next one. Answers the
   * run whose result answers the send, or 0 for "the last result" (nothing new, no run).
   */
  private int accept(SendRequest request) {
    List<Message> inputs = Inbox.newInputs(request, session.state.transcript());
    AgentRun current = session.currentRun();
    int activeRun = session.state.activeRun();
    if (request.trigger() != null) {
      if (current != null && activeRun != 0) {
        current.adoptTrigger(request.trigger());
      } else {
        session.inbox.queueTrigger(request.trigger());
      }
    }
    if (inputs.isEmpty()) {
      if (activeRun != 0) {
        return activeRun;
      }
      if (session.resumes.requested()) {
        return session.resumes.requestedRun();
      }
      return session.inbox.hasQueued() ? session.state.lastRun() + 1 : 0;
    }
    if (activeRun != 0 || session.resumes.requested()) {
      // A run in progress, or about to resume: the input joins it.
      Message startInput =
          activeRun != 0
              ? (current == null ? null : current.startInput())
              : session.resumes.requestedStartInput();
      for (Message input : inputs) {
        if (!session.inbox.interject(input, startInput)) {
          log.info("send on {}: input repeats the run's input; treated as a retry", session.id());
        }
      }
      return activeRun != 0 ? activeRun : session.resumes.requestedRun();
    }
    if (resumes(request, inputs)) {
      int run = session.resumes.request();
      session.results.resumed(run);
      log.info("send on {}: input repeats that of failed run {}; it resumes", session.id(), run);
      return run;
    }
    session.inbox.queue(inputs, request.runConfig(), request.idempotencyKey());
    session.inbox.queueConcurrencyKey(request.concurrencyKey());
    return session.state.lastRun() + 1;
  }

  /**
   * Whether the input of {@code request} ({@code inputs}, on an idle session) resumes the last run:
   * see {@link RunResumes}. Histories from before that change queued it as a new run.
   */
  private boolean resumes(SendRequest request, List<Message> inputs) {
    return !session.inbox.hasQueued()
        && session.resumes.resumedBy(
            inputs,
            request.runConfig(),
            request.idempotencyKey(),
            request.resumeWindowMs(),
            Workflow.currentTimeMillis())
        && Workflow.getVersion(ChangeIds.RESUME_RUN, Workflow.DEFAULT_VERSION, 1)
            != Workflow.DEFAULT_VERSION;
  }

  /** A sender of run {@code target} can be answered: settled, paused, or handing over. */
  private boolean answerable(int target) {
    return session.results.hasSettled(target) || pausedAt(target) || session.handover.continuing();
  }

  /**
   * Run {@code target} waits for a decision that has not arrived, and nothing will end the wait.
   */
  private boolean pausedAt(int target) {
    AgentRun current = session.currentRun();
    return session.state.activeRun() == target
        && session.awaitingDecision()
        && (current == null || !current.cancelRequested());
  }

  /**
   * Blocks this handler once, so that every other runnable workflow thread (signal handlers
   * included) runs before it goes on. No command is issued: replay is unaffected.
   */
  static void letOtherHandlersRun() {
    boolean[] yielded = {false};
    Workflow.await(
        () -> {
          boolean again = yielded[0];
          yielded[0] = true;
          return again;
        });
  }

  // ---- approvals and cancel --------------------------------------------------------------

  @Override
  public void decide(Decision decision) {
    if (decision != null
        && session.subAgents.asks(decision.approvalId())
        && InputChecks.decisionProblem(decision) == null) {
      session.subAgents.decideLater(decision);
      return;
    }
    session.approvals.signalled(decision);
  }

  @Override
  public void validateApprove(Decision decision) {
    if (decision != null && session.subAgents.asks(decision.approvalId())) {
      String problem = InputChecks.decisionProblem(decision);
      if (problem != null) {
        throw Rejection.failure(FailureTypes.INVALID_DECISION, problem, session.id());
      }
      return;
    }
    if (decision != null && session.subAgents.closedBelow(decision.approvalId())) {
      throw Rejection.failure(
          FailureTypes.APPROVAL_ALREADY_DECIDED,
          "Approval "
              + decision.approvalId()
              + " of a sub-agent of session '"
              + session.id()
              + "' is already decided.",
          session.id(),
          decision.approvalId());
    }
    session.approvals.validate(decision);
  }

  @Override
  public DecisionOutcome approve(Decision decision) {
    session.handover.updateReceived();
    if (session.subAgents.asks(decision.approvalId())) {
      return session.subAgents.decide(decision);
    }
    return session.approvals.accepted(decision);
  }

  @Override
  public void subAgentApproval(SubAgentApproval notice) {
    boolean waitedBefore = session.subAgents.waitingApproval() != null;
    session.subAgents.noticed(notice);
    boolean waitsNow = session.subAgents.waitingApproval() != null;
    AgentRun current = session.currentRun();
    if (waitedBefore != waitsNow && current != null && current.timer() != null) {
      // A wait for a decision does not count against the run's timeout, below as here.
      if (waitsNow) {
        current.timer().disarm();
      } else {
        current.timer().arm();
      }
    }
    session.show();
  }

  @Override
  public void cancel(String reason) {
    // The reason only reaches logs and the run's cancellation scope: shown, never kept whole.
    session.cancel(InputChecks.shown(reason));
  }

  // ---- close -----------------------------------------------------------------------------

  @Override
  public void validateClose(CloseRequest request) {
    if (request == null) {
      throw new IllegalArgumentException("close needs a request");
    }
    Approval pending = session.waitingApproval();
    if (pending != null && !request.force()) {
      throw Rejection.failure(
          FailureTypes.CLOSE_NEEDS_FORCE,
          "Session '"
              + session.id()
              + "' is awaiting approval "
              + pending.approvalId()
              + " for tool '"
              + pending.toolName()
              + "'; decide it first, or close with force, which cancels the run and settles the"
              + " approval as cancelled.",
          session.id(),
          pending.approvalId());
    }
  }

  /**
   * Accepts a close and answers once the workflow is about to complete (or, when the session
   * continues as new meanwhile, with the status of a session still closing: the client closes its
   * next workflow run).
   */
  @Override
  public SessionStatus close(CloseRequest request) {
    session.handover.updateReceived();
    session.lifecycle.closeRequested(request);
    AgentRun current = session.currentRun();
    if (request.force() && current != null) {
      current.cancel(InputChecks.shown(request.reason()));
    }
    Workflow.await(() -> session.lifecycle.isClosed() || session.handover.continuing());
    if (session.lifecycle.refusal() != null) {
      throw Rejection.handlerFailure(
          FailureTypes.SESSION_NOT_FOUND, session.lifecycle.refusal(), session.id());
    }
    return status();
  }

  @Override
  public void leaseGranted(LeaseRequest grant) {
    AgentRun current = session.currentRun();
    RunLease lease = current == null ? null : current.lease();
    if (grant == null || (lease != null && lease.granted(grant))) {
      return;
    }
    log.info(
        "{}: lease of '{}' granted to {}, which does not wait for it; given back",
        session.id(),
        grant.key(),
        grant);
    RunLease.giveBack(grant);
  }

  @Override
  public SessionStatus status() {
    return session.status();
  }
}
