package io.durableagents.app.console;

import io.durableagents.console.AgentConsole;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.DeltaListener;

/**
 * Streams the deltas of a worker's model turns into the session pages of a console in its process.
 * It may be attached after the worker starts (the console uses the worker's client): deltas before
 * that reach no page, as deltas before a page connects never do.
 */
public final class ConsoleDeltaListener implements DeltaListener {
  private volatile AgentConsole console;

  private ConsoleDeltaListener(AgentConsole console) {
    this.console = console;
  }

  /** A listener for {@code console}. */
  public static ConsoleDeltaListener of(AgentConsole console) {
    return new ConsoleDeltaListener(console);
  }

  /** A listener for a console {@link #attach}ed later. */
  public static ConsoleDeltaListener unattached() {
    return new ConsoleDeltaListener(null);
  }

  /** Sends later deltas to {@code console}, replacing any console attached before. */
  public void attach(AgentConsole console) {
    this.console = console;
  }

  @Override
  public void onDelta(Delta delta) {
    AgentConsole target = console;
    if (target != null) {
      target.publishDelta(
          delta.sessionId(), delta.step(), delta.attempt(), delta.kind(), delta.text());
    }
  }
}
