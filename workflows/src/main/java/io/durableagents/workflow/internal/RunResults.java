package io.durableagents.workflow.internal;

import io.durableagents.workflow.RunResult;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The results of the session's recent runs, by run number, for the senders waiting on them: a send
 * answered after its run settled still finds the result, within the last {@link #KEPT_RESULTS}
 * runs.
 */
final class RunResults {
  static final int KEPT_RESULTS = 16;

  private final Map<Integer, RunResult> results = new LinkedHashMap<>();
  private RunResult last;
  private int settledRun;

  /** Records a settled run's result; the oldest beyond {@link #KEPT_RESULTS} is dropped. */
  void settled(RunResult result) {
    results.put(result.run(), result);
    while (results.size() > KEPT_RESULTS) {
      results.remove(results.keySet().iterator().next());
    }
    last = result;
    settledRun = result.run();
  }

  /**
   * Run {@code run}, the last one, resumes: it has not settled any more, and its waiting senders
   * wait for its new end. The result it ended with stays the last one until then.
   */
  void resumed(int run) {
    results.remove(run);
    settledRun = Math.min(settledRun, run - 1);
  }

  /** The result carried over continue-as-new, if any. */
  void restore(RunResult lastResult) {
    if (lastResult != null) {
      settled(lastResult);
    }
  }

  /** Whether run {@code run} (or a later one) has settled. */
  boolean hasSettled(int run) {
    return settledRun >= run;
  }

  RunResult of(int run) {
    return results.get(run);
  }

  /** The result of the last settled run; null before the first. */
  RunResult last() {
    return last;
  }
}
