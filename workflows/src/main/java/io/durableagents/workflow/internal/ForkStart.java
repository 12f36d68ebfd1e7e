package io.durableagents.workflow.internal;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.activity.ForkRequest;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * The start of a forked session: the worker copies the chosen entry's patched transcript into the
 * store, then the fork continues the entry's run with its remaining budget, running first the calls
 * that have no result and then the appended input.
 */
final class ForkStart {
  private static final Logger log = Workflow.getLogger(ForkStart.class);

  private final Session session;

  ForkStart(Session session) {
    this.session = session;
  }

  /**
   * Prepares the fork and runs what it asks for; false when it is refused (the workflow completes).
   */
  boolean prepareAndRun() {
    String problem = InputChecks.forkProblem(session.start.fork());
    if (problem != null) {
      // Refused before anything is written, naming the limit.
      refuse(problem);
      return false;
    }
    ForkState fork;
    try {
      fork =
          session
              .stubs
              .forks()
              .prepareFork(
                  new ForkRequest(
                      session.id(),
                      Workflow.getInfo().getFirstExecutionRunId(),
                      session.start.agent(),
                      session.start.fork(),
                      Workflow.currentTimeMillis()));
    } catch (ActivityFailure e) {
      refuse(
          e.getCause() instanceof ApplicationFailure cause
              ? cause.getOriginalMessage()
              : e.getMessage());
      return false;
    }
    SessionState state = session.state;
    state.transcript().restore(fork.messageCount(), fork.transcriptHash());
    state.forkPrepared(
        fork.agent(), fork.step(), fork.usage(), fork.businessState(), Math.max(0, fork.run() - 1));
    String appendInput =
        session.start.fork().patch() == null ? null : session.start.fork().patch().appendInput();
    List<Message> inputs =
        appendInput == null || appendInput.isEmpty()
            ? List.of()
            : List.of(Message.user(appendInput));
    if (fork.pendingCalls().isEmpty() && inputs.isEmpty() && !fork.awaitsModel()) {
      // Nothing to run: the fork stands where its entry stood.
      state.forkSettledAsSource(fork.run(), fork.agent(), fork.searchAttributes());
      session.settle(
          RunResult.newBuilder()
              .setSessionId(session.id())
              .setRun(fork.run())
              .setStatus(RunStatus.settled(fork.status()) ? fork.status() : RunStatus.FINISHED)
              .setFinishReason(fork.finishReason())
              .setText(fork.lastText())
              .setSteps(0)
              .setUsage(Usage.ZERO)
              .setToolCalls(List.of())
              .setCheckpointStep(state.step())
              .setMessageCount(state.transcript().size())
              .build());
      state.forkReady();
      return true;
    }
    session.resumes.runStarted(inputs, null);
    session.execute(new AgentRun(session, inputs, fork));
    return true;
  }

  /**
   * A fork that cannot be made: its creator's {@code forkPrepared} update is answered with the
   * reason, and the workflow completes without a session (it never had a run; its id may be used
   * again). Nothing failed, so nothing is logged as a failure.
   */
  private void refuse(String reason) {
    session.refuseFork(reason);
    log.info("{} is no fork: {}", session.id(), reason);
    AgentSessionWorkflowImpl.letOtherHandlersRun();
    Workflow.await(Workflow::isEveryHandlerFinished);
  }
}
