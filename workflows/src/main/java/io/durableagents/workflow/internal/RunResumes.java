package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.UnfinishedRun;
import java.util.List;

/**
 * Whether a send resumes the last run instead of starting a new one: that run failed or was
 * cancelled with its budgets not used up, the send repeats the input it started from, and it
 * repeats the idempotency key of the send that started it or arrives within its resume window of
 * the run's end. Also keeps the input and key of the run in progress, which its end records.
 */
final class RunResumes {
  /**
   * The resume window of a send that names none. Changing it changes what replayed sends decide:
   * only behind a change id.
   */
  static final long DEFAULT_WINDOW_MS = 10 * 60 * 1000L;

  /** The last run, while a send may resume it (null: none may). */
  private UnfinishedRun unfinished;

  /** A send resumes {@code unfinished}: the main loop runs it next. */
  private boolean requested;

  /** The inputs the run in progress started from, and the idempotency key of their send. */
  private List<Message> runInputs = List.of();

  private String runKey;

  /** A run starts from {@code inputs}, sent with {@code key} (null: none). */
  void runStarted(List<Message> inputs, String key) {
    runInputs = List.copyOf(inputs);
    runKey = key;
  }

  List<Message> runInputs() {
    return runInputs;
  }

  String runKey() {
    return runKey;
  }

  /**
   * {@code run} ended with {@code result}: a send may resume it when it failed (other than with an
   * invalid answer, which ended its turns) or was cancelled; a run out of steps, tokens or time has
   * no budget left to resume with.
   */
  void runEnded(AgentRun run, RunResult result, long now) {
    unfinished = resumable(result) ? run.unfinished(runInputs, runKey, now) : null;
  }

  private static boolean resumable(RunResult result) {
    if (result.status() == RunStatus.CANCELLED) {
      return true;
    }
    return result.status() == RunStatus.FAILED
        && FinishReason.ERROR.equals(result.finishReason())
        && (result.error() == null || !FailureTypes.INVALID_OUTPUT.equals(result.error().code()));
  }

  /**
   * Whether a send of {@code inputs} with run configuration {@code runConfig}, idempotency key
   * {@code key} and resume window {@code windowMs} (null: {@link #DEFAULT_WINDOW_MS}) resumes the
   * last run at workflow time {@code now}. Two keys that differ, or a run configuration other than
   * the run's, say these are two requests, whatever the time.
   */
  boolean resumedBy(List<Message> inputs, JsonNode runConfig, String key, Long windowMs, long now) {
    if (unfinished == null
        || requested
        || inputs.isEmpty()
        || !inputs.equals(unfinished.inputs())) {
      return false;
    }
    if (runConfig != null && !runConfig.equals(unfinished.runConfig())) {
      return false;
    }
    if (key != null && unfinished.idempotencyKey() != null) {
      return key.equals(unfinished.idempotencyKey());
    }
    long window = windowMs == null ? DEFAULT_WINDOW_MS : windowMs;
    return now - unfinished.settledAt() < window;
  }

  /** A send resumes the last run; answers its number. */
  int request() {
    requested = true;
    return unfinished.run();
  }

  boolean requested() {
    return requested;
  }

  /** The number of the run a send resumes; only while {@link #requested()}. */
  int requestedRun() {
    return unfinished.run();
  }

  /** The message the run a send resumes started from; only while {@link #requested()}. */
  Message requestedStartInput() {
    return unfinished.inputs().isEmpty() ? null : unfinished.inputs().get(0);
  }

  /** The run a send resumes, as it resumes: it is the run in progress now. */
  UnfinishedRun take() {
    UnfinishedRun run = unfinished;
    runStarted(run.inputs(), run.idempotencyKey());
    unfinished = null;
    requested = false;
    return run;
  }

  UnfinishedRun unfinished() {
    return unfinished;
  }

  /** What continue-as-new carried over. */
  void restore(UnfinishedRun restored, boolean resumeRequested, List<Message> inputs, String key) {
    unfinished = restored;
    requested = resumeRequested && restored != null;
    runStarted(inputs, key);
  }
}
