package io.durableagents.activities.internal;

import io.durableagents.tools.ToolCancellation;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cancellations of the tool calls running on one plugin's workers, so that a shutdown of those
 * workers stops them: the calls run again on another worker instead of holding the shutdown up.
 */
public final class RunningTools {
  private final Set<ToolCancellation> running = ConcurrentHashMap.newKeySet();

  void add(ToolCancellation cancellation) {
    running.add(cancellation);
  }

  void remove(ToolCancellation cancellation) {
    running.remove(cancellation);
  }

  /** Cancels every running call with {@link ToolCancellation.Reason#WORKER_SHUTDOWN}. */
  public void cancelAllForShutdown() {
    running.forEach(call -> call.cancel(ToolCancellation.Reason.WORKER_SHUTDOWN));
  }
}
