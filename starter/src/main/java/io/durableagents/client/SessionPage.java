package io.durableagents.client;

import java.util.List;

/**
 * One page of {@link ProjectionReader#sessions}: newest activity first.
 *
 * @param nextCursor pass it back for the next page; null on the last one
 */
public record SessionPage(List<SessionRow> sessions, String nextCursor) {
  /** A page of an immutable copy of {@code sessions}. */
  public SessionPage {
    sessions = List.copyOf(sessions);
  }
}
