package io.durableagents.client;

import java.util.List;

/**
 * One page of {@link ProjectionReader#approvals(boolean, String, int)}: oldest request first.
 *
 * @param nextCursor pass it back for the next page; null on the last one
 */
public record ApprovalPage(List<ApprovalRow> approvals, String nextCursor) {
  /** A page of an immutable copy of {@code approvals}. */
  public ApprovalPage {
    approvals = List.copyOf(approvals);
  }
}
