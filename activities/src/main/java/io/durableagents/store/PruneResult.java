package io.durableagents.store;

/**
 * What {@link AgentStore#prune} removed.
 *
 * @param sessions settled sessions not updated since the cutoff, removed with all their rows
 * @param historyEntries checkpoint history entries removed (those of the removed sessions, and
 *     entries of other sessions saved before the cutoff)
 * @param messages transcript messages removed
 * @param approvals approval rows removed
 */
public record PruneResult(int sessions, int historyEntries, int messages, int approvals) {

  /** True when nothing was removed. */
  public boolean isEmpty() {
    return sessions == 0 && historyEntries == 0 && messages == 0 && approvals == 0;
  }
}
