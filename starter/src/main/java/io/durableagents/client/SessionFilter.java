package io.durableagents.client;

import io.durableagents.session.RunStatus;

/**
 * Which sessions {@link ProjectionReader#sessions} lists: those matching every non-null field.
 *
 * @param status the session's status
 * @param agent the session's agent
 * @param idContains a part of the session id, matched literally (case-sensitive)
 */
public record SessionFilter(RunStatus status, String agent, String idContains) {
  /** Every session. */
  public static final SessionFilter ALL = new SessionFilter(null, null, null);
}
