package io.durableagents.cli;

import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientException;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Where the CLI finds Temporal and the projection: a picocli mixin shared by every command that
 * talks to a session and by the worker commands. The Temporal options win over the {@code
 * TEMPORAL_*} variables and the {@code temporal.toml} profile (see {@link ConnectionSettings}); the
 * others fall back to their environment variable (see {@link EnvironmentDefaults}), then to the
 * built-in default.
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
  /** The Temporal address used when neither an option nor the environment gives one. */
  public static final String DEFAULT_TEMPORAL = ConnectionSettings.DEFAULT_ADDRESS;

  /** The namespace used when neither an option nor the environment gives one. */
  public static final String DEFAULT_NAMESPACE = ConnectionSettings.DEFAULT_NAMESPACE;

  /** The task queue used when neither an option nor the environment gives one. */
  public static final String DEFAULT_TASK_QUEUE = AgentClientOptions.DEFAULT_TASK_QUEUE;

  /** The projection URL used when neither an option nor the environment gives one. */
  public static final String DEFAULT_PROJECTION = "jdbc:sqlite:.agents/projection.db";

  /**
   * The options that choose a Temporal to connect to (commands with their own server refuse them).
   */
  public static final List<String> TEMPORAL_OPTIONS =
      List.of("--temporal", "--namespace", "--profile", "--api-key-file", "--tls");

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(
      names = "--temporal",
      paramLabel = "HOST:PORT",
      description =
          "Temporal frontend address (env TEMPORAL_ADDRESS, else the profile's; default: "
              + DEFAULT_TEMPORAL
              + ").")
  String temporal;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description =
          "Temporal namespace (env TEMPORAL_NAMESPACE, else the profile's; default: "
              + DEFAULT_NAMESPACE
              + ").")
  String namespace;

  @Option(
      names = "--profile",
      paramLabel = "NAME",
      description =
          "Profile of temporal.toml (env TEMPORAL_PROFILE; file: env TEMPORAL_CONFIG_FILE, default"
              + " ~/.config/temporalio/temporal.toml); TEMPORAL_* variables override its settings.")
  String profile;

  @Option(
      names = "--api-key-file",
      paramLabel = "PATH",
      description = "File holding the Temporal API key (env TEMPORAL_API_KEY); turns TLS on.")
  Path apiKeyFile;

  @Option(
      names = "--tls",
      description =
          "Connect with TLS (env TEMPORAL_TLS=true); client certificate: env TEMPORAL_TLS_CLIENT_CERT_PATH"
              + " and TEMPORAL_TLS_CLIENT_KEY_PATH, server CA: TEMPORAL_TLS_SERVER_CA_CERT_PATH.")
  boolean tls;

  @Option(
      names = "--task-queue",
      paramLabel = "QUEUE",
      defaultValue = DEFAULT_TASK_QUEUE,
      description =
          "Task queue the agent workers poll (env AGENTS_TASK_QUEUE; default: ${DEFAULT-VALUE}).")
  String taskQueue;

  @Option(
      names = "--projection",
      paramLabel = "JDBC_URL",
      defaultValue = DEFAULT_PROJECTION,
      description =
          "Projection database holding the conversations (env AGENTS_PROJECTION_URL; default: ${DEFAULT-VALUE}).")
  String projection;

  private ConnectionSettings settings;

  /**
   * The Temporal connection these options and the environment describe, resolved on first use (so
   * commands that only read the projection never fail on Temporal settings).
   */
  public ConnectionSettings settings() {
    if (settings == null) {
      settings =
          ConnectionSettings.newBuilder(EnvironmentDefaults.environmentOf(mixee))
              .setAddress(temporal)
              .setNamespace(namespace)
              .setProfile(profile)
              .setApiKeyFile(apiKeyFile)
              .setTls(tls)
              .build();
    }
    return settings;
  }

  /**
   * A plain connection to {@code address}, a server this process runs, in the namespace of {@code
   * --namespace} or {@code TEMPORAL_NAMESPACE}: profiles, API keys and TLS settings do not apply.
   */
  public ConnectionSettings plainSettings(String address) {
    String ns = namespace;
    if (ns == null || ns.isBlank()) {
      ns = EnvironmentDefaults.environmentOf(mixee).get("TEMPORAL_NAMESPACE");
    }
    return ConnectionSettings.plain(address, ns == null || ns.isBlank() ? DEFAULT_NAMESPACE : ns);
  }

  /** The Temporal address from {@code --temporal}, the environment or the default. */
  public String temporal() {
    return settings().address();
  }

  /** The namespace from {@code --namespace}, the environment or the default. */
  public String namespace() {
    return settings().namespace();
  }

  /** The task queue of the agents' workers. */
  public String taskQueue() {
    return taskQueue;
  }

  /** The projection's JDBC URL. */
  public String projection() {
    return projection;
  }

  /** {@link #open(boolean)} with the projection, so run results carry their messages. */
  public Connection open() {
    return open(true);
  }

  /**
   * Connects to Temporal (checked with a health call and the namespace, so a wrong address or
   * namespace fails in seconds with a {@link CliException} instead of hanging) and builds an {@link
   * AgentClient} on the namespace and task queue, reading transcripts from the projection when
   * {@code withProjection}.
   */
  public Connection open(boolean withProjection) {
    ConnectionSettings temporalSettings = settings();
    WorkflowServiceStubs service = temporalSettings.connect();
    ProjectionReader reader = null;
    try {
      WorkflowClient workflowClient =
          WorkflowClient.newInstance(service, temporalSettings.clientOptions());
      AgentClientOptions.Builder options = AgentClientOptions.newBuilder().setTaskQueue(taskQueue);
      if (withProjection) {
        reader = ProjectionReader.open(projection);
        options.setProjection(reader).setProjectionFailureListener(this::warnMessagesLeftOut);
      }
      AgentClient agents = AgentClient.newInstance(workflowClient, options.build());
      return new Connection(service, workflowClient, agents, reader);
    } catch (RuntimeException e) {
      closeQuietly(reader);
      service.shutdownNow();
      throw e;
    }
  }

  /**
   * The session took the input, so the command succeeds: a projection it cannot read is a warning
   * on stderr (a script that retried on failure would send the input again).
   */
  void warnMessagesLeftOut(AgentClientException e) {
    PrintWriter err =
        mixee != null
            ? mixee.commandLine().getErr()
            : new PrintWriter(System.err, true, Charset.defaultCharset());
    err.println("Warning: the result is shown without its messages: " + e.getMessage());
    err.flush();
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

    /** The client over this connection. */
    public AgentClient agents() {
      return agents;
    }

    /** The Temporal client over this connection. */
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
