package io.durableagents.activities.internal;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.store.StoreException;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.activity.LifecycleActivities;
import io.durableagents.workflow.internal.activity.SessionClose;
import io.durableagents.workflow.internal.activity.SessionRef;
import io.durableagents.workflow.internal.activity.SessionReset;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * A session's restore from the store when a new workflow starts under its id (from its newest
 * entry, or from the entry a reset names), and its close or removal when its workflow completes.
 */
public final class LifecycleActivitiesImpl implements LifecycleActivities {
  private final CheckpointStore store;
  private final SearchAttributeCheck searchAttributes;

  public LifecycleActivitiesImpl(CheckpointStore store, SearchAttributeCheck searchAttributes) {
    this.store = store;
    this.searchAttributes = searchAttributes;
  }

  @Override
  public ForkState restoreSession(SessionRef request) {
    try {
      StoredSession session = store.adopt(request.sessionId(), request.executionId()).orElse(null);
      if (session == null) {
        // A new session; under the id of one deleted with its history kept, it numbers its runs
        // and entries after that history's, so that it never writes over it.
        return store
            .retireKeptHistory(
                request.sessionId(),
                "delete with kept history before " + Instant.now().truncatedTo(ChronoUnit.SECONDS))
            .map(kept -> ForkState.newLife(kept.run(), kept.step()))
            .orElse(null);
      }
      // The newest entry of the session's current line: after a reset, the newer entries it
      // superseded are no longer where the session stands.
      return store
          .newestCurrentEntry(request.sessionId())
          .map(entry -> fromEntry(session, entry))
          .orElseGet(() -> fromRow(session));
    } catch (StoreException e) {
      throw StoreFailures.retried(e, request.sessionId());
    }
  }

  @Override
  public ForkState resetSession(SessionReset request) {
    try {
      return store
          .reset(request.sessionId(), request.executionId(), request.step(), request.supersededBy())
          .map(point -> fromReset(point.session(), point.entry()))
          .orElse(null);
    } catch (StoreException e) {
      throw StoreFailures.retried(e, request.sessionId());
    }
  }

  /**
   * The reset entry as the session's new line starts from it: its transcript, status and totals,
   * with the run and step numbering of the session's newest entry, so that the new line's runs and
   * entries follow the superseded ones.
   */
  private ForkState fromReset(StoredSession session, StoredEntry entry) {
    ForkState at = fromEntry(session, entry);
    return new ForkState(
        at.agent(),
        Math.max(session.currentRun(), entry.run()),
        at.stepsUsedInRun(),
        Math.max(session.lastStep(), entry.step()),
        at.messageCount(),
        at.usage(),
        at.status(),
        at.finishReason(),
        at.lastText(),
        at.pendingCalls(),
        at.checks(),
        at.transcriptHash(),
        at.businessState(),
        at.searchAttributes(),
        at.awaitsModel(),
        at.runUsage(),
        at.fingerprint(),
        at.runConfig(),
        false);
  }

  @Override
  public void closeSession(SessionClose close) {
    try {
      if (close.delete()) {
        store.delete(close.sessionId(), close.keepHistory());
      } else {
        store.markClosed(close.sessionId(), close.executionId(), close.closedAt());
      }
    } catch (StoreException e) {
      throw StoreFailures.retried(e, close.sessionId());
    }
  }

  private ForkState fromEntry(StoredSession session, StoredEntry entry) {
    return new ForkState(
        session.agent(),
        entry.run(),
        entry.runSteps() == null ? 0 : entry.runSteps(),
        entry.step(),
        entry.messageCount(),
        entry.usage(),
        entry.status(),
        entry.finishReason(),
        lastText(session.sessionId(), entry.messageCount()),
        List.of(),
        List.of(),
        entry.transcriptHash(),
        entry.businessState(),
        searchAttributes.upserts(),
        false,
        entry.runUsage(),
        entry.fingerprint(),
        entry.runConfig(),
        false);
  }

  /** A session whose history entries were all pruned: its row says where it stood. */
  private ForkState fromRow(StoredSession session) {
    return new ForkState(
        session.agent(),
        session.currentRun(),
        0,
        session.lastStep(),
        session.messageCount(),
        session.usage(),
        session.status(),
        null,
        lastText(session.sessionId(), session.messageCount()),
        List.of(),
        List.of(),
        null,
        null,
        searchAttributes.upserts(),
        false,
        null,
        session.fingerprint(),
        session.runConfig(),
        false);
  }

  /** The text of the transcript's last message when the model wrote it, else null. */
  private String lastText(String sessionId, int messageCount) {
    if (messageCount == 0) {
      return null;
    }
    Message last = store.readMessages(sessionId, messageCount - 1, messageCount).get(0);
    return last.role() == Role.ASSISTANT ? last.text() : null;
  }
}
