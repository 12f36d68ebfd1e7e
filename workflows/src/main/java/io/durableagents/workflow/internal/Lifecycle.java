package io.durableagents.workflow.internal;

import io.durableagents.session.SessionLifecycle;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.wire.CloseRequest;
import java.time.Duration;

/**
 * A session's end of life: whether it waits for its restore from the store (a new workflow under a
 * known id), whether a close was accepted and by whom, and how long it may stay idle. The workflow
 * method acts on it; handlers only record.
 */
final class Lifecycle {
  /** True until the workflow method knows whether the store has this session's past. */
  private boolean restoring;

  private CloseRequest close;
  private boolean closed;

  /** Why a close could not be done (the store has no such session), once known. */
  private String refusal;

  private long idleTimeoutMs;

  Lifecycle(boolean restoring) {
    this.restoring = restoring;
  }

  boolean restoring() {
    return restoring;
  }

  void restored() {
    restoring = false;
  }

  /** Records a close; the first one's options hold, except that a later force or delete adds. */
  void closeRequested(CloseRequest request) {
    if (close == null) {
      close = request;
    } else {
      close =
          new CloseRequest(
              close.force() || request.force(),
              close.delete() || request.delete(),
              close.delete() ? close.keepHistory() : request.keepHistory(),
              close.reason());
    }
  }

  boolean closing() {
    return close != null;
  }

  CloseRequest request() {
    return close;
  }

  /** The session closes by itself after its idle timeout. */
  void idleTimedOut() {
    close = new CloseRequest(false, false, false, "idle timeout");
  }

  /** A sub-agent session closes once its one run settled. */
  void taskFinished() {
    close = new CloseRequest(false, false, false, "sub-agent task finished");
  }

  void closed() {
    closed = true;
  }

  boolean isClosed() {
    return closed;
  }

  /** The close cannot be done; a send that came with it still runs. */
  void refuse(String reason) {
    refusal = reason;
    closed = true;
    close = null;
  }

  String refusal() {
    return refusal;
  }

  SessionLifecycle state() {
    if (closed && refusal == null) {
      return close.delete() ? SessionLifecycle.DELETED : SessionLifecycle.CLOSED;
    }
    return close != null ? SessionLifecycle.CLOSING : null;
  }

  /** The idle timeout a previous workflow run of the session handed over (0: none known). */
  void restoreIdleTimeout(long ms) {
    idleTimeoutMs = ms;
  }

  /**
   * The idle timeout of the agent as its last run resolved it ({@code spec}, null when this
   * workflow run had none), else as handed over, else the default.
   */
  long idleTimeoutMs(AgentSpec spec) {
    if (spec != null) {
      return spec.idleTimeoutMs();
    }
    return idleTimeoutMs > 0 ? idleTimeoutMs : AgentSpec.DEFAULT_IDLE_TIMEOUT_MS;
  }

  Duration idleTimeout(AgentSpec spec) {
    return Duration.ofMillis(idleTimeoutMs(spec));
  }
}
