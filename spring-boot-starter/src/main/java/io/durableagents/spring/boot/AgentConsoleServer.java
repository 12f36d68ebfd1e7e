package io.durableagents.spring.boot;

import io.durableagents.client.AgentClient;
import io.durableagents.client.ProjectionReader;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.spring.boot.internal.ConsoleDeltas;
import java.net.URI;
import org.springframework.context.SmartLifecycle;

/**
 * The console ({@link AgentConsole}: the approvals inbox, the session browser and their REST API)
 * served by the application when {@code durable-agents.console.enabled} is true. The console is an
 * HTTP server of its own (Javalin on Jetty), not a servlet: it starts and stops with the
 * application's context, on {@code durable-agents.console.bind} and {@code .port}, next to any web
 * server the application has. The deltas of the application's model turns stream to its session
 * pages.
 */
public final class AgentConsoleServer implements SmartLifecycle {
  private final AgentClient client;
  private final ProjectionReader projection;
  private final ConsoleOptions options;
  private final ConsoleDeltas deltas;
  private volatile AgentConsole console;

  AgentConsoleServer(
      AgentClient client,
      ProjectionReader projection,
      ConsoleOptions options,
      ConsoleDeltas deltas) {
    this.client = client;
    this.projection = projection;
    this.options = options;
    this.deltas = deltas;
  }

  /** The options the console starts with. */
  public ConsoleOptions options() {
    return options;
  }

  /**
   * The console's base URL, e.g. {@code http://127.0.0.1:8080/}.
   *
   * @throws IllegalStateException when the console is not running
   */
  public URI url() {
    return running().url();
  }

  /**
   * The port the console listens on: the chosen one when {@code durable-agents.console.port} is 0.
   *
   * @throws IllegalStateException when the console is not running
   */
  public int port() {
    return running().port();
  }

  private AgentConsole running() {
    AgentConsole current = console;
    if (current == null) {
      throw new IllegalStateException("the console is not running");
    }
    return current;
  }

  /** Starts the console with the application's context. */
  @Override
  public synchronized void start() {
    if (console == null) {
      console = AgentConsole.start(client, projection, options);
      deltas.attach(console);
    }
  }

  /** Stops the console with the application's context. */
  @Override
  public synchronized void stop() {
    AgentConsole current = console;
    if (current != null) {
      deltas.attach(null);
      console = null;
      current.close();
    }
  }

  /** Whether the console is serving. */
  @Override
  public boolean isRunning() {
    return console != null;
  }
}
