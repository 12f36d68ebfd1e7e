package io.durableagents.workflow.internal;

import io.durableagents.workflow.internal.wire.SessionSnapshot;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.common.InitialVersioningBehavior;
import io.temporal.workflow.ContinueAsNewOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInfo;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * When and how the session hands over to its next workflow run (continue-as-new) with its whole
 * state: past the start's event bound, past half of the server's update limit per run, or when
 * Temporal suggests it. Waiting senders are answered "continued" and attach again.
 *
 * <p>With worker versioning, it also hands over between runs when Temporal says a newer worker
 * deployment version is the target: the next workflow run starts on that version ({@link
 * InitialVersioningBehavior#AUTO_UPGRADE}, then pinned again), so an idle session does not keep the
 * old version's workers busy.
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

  /** True when the hand-over moves the session onto the deployment's target version. */
  private boolean upgrade;

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
    return suggested()
        || Workflow.getInfo().getHistoryLength() > start.eventLimit()
        || updates >= MAX_UPDATES_PER_RUN;
  }

  /**
   * Whether Temporal suggests continue-as-new for the history's sake. A server that also suggests
   * it for a new target version (dynamic config {@code system.enableSuggestCaNOnNewTargetVersion})
   * gives a reason this SDK does not know, so no known reason: that one is answered by the upgrade
   * between runs, since a plain hand-over would stay on the old version and be suggested again.
   */
  private static boolean suggested() {
    WorkflowInfo info = Workflow.getInfo();
    return info.isContinueAsNewSuggested()
        && (!info.isTargetWorkerDeploymentVersionChanged()
            || !info.getSuggestContinueAsNewReasons().isEmpty());
  }

  /**
   * Whether the worker deployment's target version (current or ramping) is no longer the one this
   * workflow run is pinned to. Always false on workers without versioning. Temporal refreshes it
   * with each workflow task, so an idle session sees it when its next send or signal arrives.
   */
  boolean newVersionAvailable() {
    return Workflow.getInfo().isTargetWorkerDeploymentVersionChanged();
  }

  /**
   * Makes the next {@link #continueAsNew} start the new workflow run on the target version, and
   * answers true; false when replaying a history from before this change.
   */
  boolean upgradeOnContinueAsNew() {
    if (Workflow.getVersion(ChangeIds.UPGRADE_ON_CONTINUE_AS_NEW, Workflow.DEFAULT_VERSION, 1)
        == Workflow.DEFAULT_VERSION) {
      return false;
    }
    upgrade = true;
    return true;
  }

  /**
   * Whether an approval wait hands over only once its notifier's result is recorded; false when
   * replaying a history from before this change, whose wait handed over at once.
   */
  boolean waitsForNotifier() {
    return Workflow.getVersion(ChangeIds.NOTIFIED_BEFORE_HANDOVER, Workflow.DEFAULT_VERSION, 1)
        != Workflow.DEFAULT_VERSION;
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
    if (upgrade) {
      log.info("{} continues as new onto the worker deployment's target version", sessionId);
      Workflow.continueAsNew(
          ContinueAsNewOptions.newBuilder()
              .setInitialVersioningBehavior(InitialVersioningBehavior.AUTO_UPGRADE)
              .build(),
          start.continuedWith(snapshot.get(), agentName));
    }
    log.info(
        "{} continues as new after {} events", sessionId, Workflow.getInfo().getHistoryLength());
    Workflow.continueAsNew(start.continuedWith(snapshot.get(), agentName));
  }
}
