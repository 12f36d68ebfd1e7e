package io.durableagents.spring.boot.internal;

import io.durableagents.console.AgentConsole;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.DeltaListener;

/**
 * Streams the deltas of the application's model turns to the session pages of its console. The
 * plugin gets it before the console starts (the console needs the client, which needs the plugin):
 * deltas before then reach no page, as deltas before a page connects never do.
 */
public final class ConsoleDeltas implements DeltaListener {
  private volatile AgentConsole console;

  /** Sends later deltas to {@code console} (null: to none). */
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
