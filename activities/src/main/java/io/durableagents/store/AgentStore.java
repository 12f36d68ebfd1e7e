package io.durableagents.store;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A projection store as {@link AgentStores#open} opens it: give it to the plugin ({@code
 * AgentsPluginOptions.Builder#setStore}), and keep its tables in bounds with {@link #prune} and
 * {@link #delete}. Read the sessions, histories and approvals it holds through the client ({@code
 * AgentClient}), which reads them as one read model. Safe to use from several threads; close it
 * when the worker stops.
 *
 * <p>Only stores that {@link AgentStores} opens can be given to the plugin: the plugin writes the
 * workflow's checkpoints through an interface of its own.
 */
public interface AgentStore extends AutoCloseable {

  /** History entries kept per session after each save (the newest steps); 0 keeps none. */
  int historyLimit();

  /**
   * Removes a session from the store. Without {@code keepHistory} every row goes: the session row,
   * the transcript, the history entries and the approvals. With {@code keepHistory} the history
   * entries and the transcript messages they hold stay, retired: each entry is marked superseded by
   * {@code delete with kept history at TIME} (as a reset marks the entries it supersedes), and its
   * messages are kept beside it; the session row, its approvals and the session's transcript go. A
   * session started again under the id is a new session: it numbers its runs and history entries
   * after the kept ones, so the history of the id shows both, the older entries marked, and nothing
   * of the new session writes over the kept history.
   *
   * <p>The workflow does not know: a session that receives another message afterwards saves only
   * its new messages, so its projection has a gap until it is rebuilt from the workflow history.
   *
   * @return true if anything was removed
   */
  boolean delete(String sessionId, boolean keepHistory);

  /**
   * Removes what is older than {@code cutoff}: sessions that are settled (not {@code in-progress}
   * nor {@code awaiting-approval}) and were last updated before it, with all their rows; and the
   * history entries of any session saved before it. Transcript messages that no session row and no
   * history entry refers to any more go too.
   */
  PruneResult prune(Instant cutoff);

  /** {@link #prune(Instant)} with the cutoff {@code olderThan} before now. */
  default PruneResult prune(Duration olderThan) {
    Objects.requireNonNull(olderThan, "olderThan");
    if (olderThan.isNegative()) {
      throw new IllegalArgumentException("olderThan must not be negative, was " + olderThan);
    }
    return prune(Instant.now().minus(olderThan));
  }

  /** Releases the store's connections (and its pool, if the store owns it). */
  @Override
  void close();
}
