package io.durableagents.workflow.internal;

import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.SessionSearchAttributes;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributeUpdate;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What Temporal's own tools show of a session: its current details (run, status, the tool an
 * approval waits for) and its search attributes ({@link SessionSearchAttributes}). Attributes are
 * upserted only once a recorded result said the worker found them registered, and only the values
 * that changed: an unregistered attribute would fail every workflow task of the session. Neither
 * ever holds prompt, argument or result text.
 */
final class SessionVisibility {
  private final String parentSession;
  private String agent;
  private boolean upserts;

  /**
   * {@code parentSession}: the session a fork was taken from or a sub-agent session's parent, null
   * for any other session.
   */
  SessionVisibility(String parentSession) {
    this.parentSession = parentSession;
  }

  /**
   * The session's agent, from a recorded result that also says whether the attributes are
   * registered; the next {@link #show} upserts it.
   */
  void agentKnown(String agentName, boolean attributesRegistered) {
    this.agent = agentName;
    this.upserts = attributesRegistered;
  }

  /**
   * Shows the session in {@code status} (a {@link RunStatus}) at {@code run}, whose concurrency key
   * is {@code concurrencyKey} (null: none); a {@code closed} session as {@link
   * SessionSearchAttributes#CLOSED}.
   */
  void show(int run, RunStatus status, Approval pending, String concurrencyKey, boolean closed) {
    Workflow.setCurrentDetails(
        closed
            ? "run " + run + " · " + SessionSearchAttributes.CLOSED
            : details(run, status, pending));
    if (!upserts) {
      return;
    }
    List<SearchAttributeUpdate<?>> updates = new ArrayList<>();
    changed(updates, SessionSearchAttributes.AGENT_NAME, agent);
    changed(updates, SessionSearchAttributes.PARENT_SESSION, parentSession);
    changed(updates, SessionSearchAttributes.CONCURRENCY_KEY, concurrencyKey);
    String agentStatus =
        closed ? SessionSearchAttributes.CLOSED : SessionSearchAttributes.agentStatus(status);
    if (agentStatus != null) {
      changed(updates, SessionSearchAttributes.AGENT_STATUS, agentStatus);
      changed(updates, SessionSearchAttributes.PENDING_APPROVALS, pending == null ? 0L : 1L);
    }
    if (!updates.isEmpty()) {
      Workflow.upsertTypedSearchAttributes(updates.toArray(new SearchAttributeUpdate<?>[0]));
    }
  }

  /** The current details: e.g. {@code run 2 · awaiting-approval · tool book_table}. */
  static String details(int run, RunStatus status, Approval pending) {
    if (run == 0) {
      return "waiting for the first message";
    }
    String shown = SessionSearchAttributes.agentStatus(status);
    String details = "run " + run + " · " + (shown == null ? status : shown);
    return pending == null ? details : details + " · tool " + pending.toolName();
  }

  /**
   * Adds an update of {@code key} unless it already holds {@code value} (the attributes carry over
   * continue-as-new, so a continued session upserts nothing it already shows).
   */
  private static <T> void changed(
      List<SearchAttributeUpdate<?>> updates, SearchAttributeKey<T> key, T value) {
    if (value != null && !Objects.equals(Workflow.getTypedSearchAttributes().get(key), value)) {
      updates.add(key.valueSet(value));
    }
  }
}
