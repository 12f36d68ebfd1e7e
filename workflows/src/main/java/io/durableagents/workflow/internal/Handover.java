package io.durableagents.workflow.internal;

import io.durableagents.workflow.SessionSnapshot;
import io.durableagents.workflow.SessionStart;
import io.temporal.workflow.Workflow;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * When and how the session hands over to its next workflow run (continue-as-new) with its whole
 * state: past the start's event bound, past half of the server's update limit per run, or when
 * Temporal suggests it. Waiting senders are answered "continued" and attach again.
 */
final class Handover {
  private static final Logger log = Workflow.getLogger(Handover.class);

  /** A real server allows 2,000 updates per workflow run. */
  static final int MAX_UPDATES_PER_RUN = 1000;

  private final SessionStart start;
  private final String sessionId;

  /** Updates received by this workflow run. */
  private int updates;

  /** True while the session hands over: waiting senders re-attach. */
  private boolean continuing;

  Handover(SessionStart start, String sessionId) {
    this.start = start;
    this.sessionId = sessionId;
  }

  void updateReceived() {
    updates++;
  }

  /** Whether this workflow run has received an update (a send or a decision). */
  boolean anyUpdate() {
    return updates > 0;
  }

  boolean continuing() {
    return continuing;
  }

  boolean due() {
    return Workflow.getInfo().isContinueAsNewSuggested()
        || Workflow.getInfo().getHistoryLength() > start.eventLimit()
        || updates >= MAX_UPDATES_PER_RUN;
  }

  /**
   * Writes the waiting entries, lets every handler finish, and continues as new with the snapshot
   * (taken last, so it holds what the handlers recorded). Does not return.
   */
  void continueAsNew(
      Checkpoints checkpoints, Supplier<SessionSnapshot> snapshot, String agentName) {
    checkpoints.flush();
    continuing = true;
    Workflow.await(Workflow::isEveryHandlerFinished);
    log.info(
        "{} continues as new after {} events", sessionId, Workflow.getInfo().getHistoryLength());
    Workflow.continueAsNew(start.continuedWith(snapshot.get(), agentName));
  }
}
