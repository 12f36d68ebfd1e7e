package io.durableagents.cli;

import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import picocli.CommandLine.Option;

/**
 * Where the CLI finds Temporal and the projection: a picocli mixin shared by every command that
 * talks to a session and by the worker commands. Each option falls back to its environment
 * variable (see {@link EnvironmentDefaults}), then to the built-in default.
 *
 * <pre>{@code
 * @Command(name = "send")
 * class SendCommand implements Callable<Integer> {
 *   @Mixin ConnectionOptions connection;
 *
 *   public Integer call() {
 *     try (ConnectionOptions.Connection c = connection.open()) {
 *       RunResult result = c.agents().send("chat-1", "hello");
 *       ...
 *     }
 *   }
 * }
 * }</pre>
 */
public class ConnectionOptions {
  public static final String DEFAULT_TEMPORAL = "127.0.0.1:7233";
  public static final String DEFAULT_NAMESPACE = "default";
  public static final String DEFAULT_TASK_QUEUE = AgentClientOptions.DEFAULT_TASK_QUEUE;
  public static final String DEFAULT_PROJECTION = "jdbc:sqlite:.agents/projection.db";

  @Option(
      names = "--temporal",
      paramLabel = "HOST:PORT",
      defaultValue = DEFAULT_TEMPORAL,
      description = "Temporal frontend address (env TEMPORAL_ADDRESS; default: ${DEFAULT-VALUE}).")
  String temporal;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      defaultValue = DEFAULT_NAMESPACE,
      description = "Temporal namespace (env TEMPORAL_NAMESPACE; default: ${DEFAULT-VALUE}).")
  String namespace;

  @Option(
      names = "--task-queue",
      paramLabel = "QUEUE",
      defaultValue = DEFAULT_TASK_QUEUE,
      description = "Task queue the agent workers poll (env AGENTS_TASK_QUEUE; default: ${DEFAULT-VALUE}).")
  String taskQueue;

  @Option(
      names = "--projection",
      paramLabel = "JDBC_URL",
      defaultValue = DEFAULT_PROJECTION,
      description =
          "Projection database holding the conversations (env AGENTS_PROJECTION_URL; default: ${DEFAULT-VALUE}).")
  String projection;

  public String temporal() {
    return temporal;
  }

  public String namespace() {
    return namespace;
  }

  public String taskQueue() {
    return taskQueue;
  }

  public String projection() {
    return projection;
  }

  /** {@link #open(boolean)} with the projection, so run results carry their messages. */
  public Connection open() {
    return open(true);
  }

  /**
   * Connects to Temporal (checked with a health call, so a wrong address fails in seconds with a
   * {@link CliException} instead of hanging) and builds an {@link AgentClient} on the namespace and
   * task queue, reading transcripts from the projection when {@code withProjection}.
   */
  public Connection open(boolean withProjection) {
    WorkflowServiceStubs service = connect(temporal);
    ProjectionReader reader = null;
    try {
      WorkflowClient workflowClient =
          WorkflowClient.newInstance(
              service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
      AgentClientOptions.Builder options = AgentClientOptions.newBuilder().taskQueue(taskQueue);
      if (withProjection) {
        reader = ProjectionReader.open(projection);
        options.projection(reader);
      }
      AgentClient agents = AgentClient.newInstance(workflowClient, options.build());
      return new Connection(service, workflowClient, agents, reader);
    } catch (RuntimeException e) {
      closeQuietly(reader);
      service.shutdownNow();
      throw e;
    }
  }

  /** Service stubs for {@code address}, or a {@link CliException} saying Temporal is unreachable. */
  public static WorkflowServiceStubs connect(String address) {
    WorkflowServiceStubsOptions options;
    try {
      options = WorkflowServiceStubsOptions.newBuilder().setTarget(address).build();
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.USAGE, "Invalid Temporal address '" + address + "': expected HOST:PORT.", e);
    }
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(options);
    try {
      stubs.healthCheck();
      return stubs;
    } catch (RuntimeException e) {
      stubs.shutdownNow();
      throw new CliException(
          ExitCodes.ERROR,
          "Cannot reach Temporal at " + address + " (" + firstLine(e)
              + "): start one with './agents dev', or point --temporal / TEMPORAL_ADDRESS at yours.",
          e);
    }
  }

  private static String firstLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline).strip();
  }

  static void closeQuietly(AutoCloseable resource) {
    if (resource != null) {
      try {
        resource.close();
      } catch (Exception ignored) {
        // Closing on the way out: nothing useful to do with a failure here.
      }
    }
  }

  /** What {@link #open} opened; closing it closes the projection reader and the connection. */
  public static final class Connection implements AutoCloseable {
    private final WorkflowServiceStubs service;
    private final WorkflowClient workflowClient;
    private final AgentClient agents;
    private final ProjectionReader projection;

    Connection(
        WorkflowServiceStubs service,
        WorkflowClient workflowClient,
        AgentClient agents,
        ProjectionReader projection) {
      this.service = service;
      this.workflowClient = workflowClient;
      this.agents = agents;
      this.projection = projection;
    }

    public AgentClient agents() {
      return agents;
    }

    public WorkflowClient workflowClient() {
      return workflowClient;
    }

    /** The projection reader, or null when opened without one. */
    public ProjectionReader projection() {
      return projection;
    }

    @Override
    public void close() {
      closeQuietly(projection);
      service.shutdown();
      try {
        if (!service.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS)) {
          service.shutdownNow();
        }
      } catch (RuntimeException e) {
        service.shutdownNow();
      }
    }
  }
}
