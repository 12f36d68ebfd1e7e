package io.durableagents.testing;

import io.durableagents.agent.Agent;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Your agents on an in-memory Temporal, for tests: Temporal's {@link TestWorkflowEnvironment} with
 * the {@link AgentsPlugin} registered on one worker, the real activities and store on a SQLite file
 * in a temporary directory, and an {@link AgentClient} on them that reads that projection. Nothing
 * to install and nothing left behind: {@link #close()} stops everything and deletes the directory
 * it created.
 *
 * <pre>{@code
 * try (AgentTestEnvironment env = AgentTestEnvironment.newBuilder()
 *     .addAgent(concierge)
 *     .setScript("{\"turns\": [{\"toolCalls\": [{\"name\": \"add\", \"arguments\": {\"a\": 2, \"b\": 3}}]},"
 *         + " {\"text\": \"2 + 3 = 5\"}]}")
 *     .start()) {
 *   RunResult result = env.client().send("chat-1", "What is 2 + 3?");
 *   assertEquals(RunStatus.FINISHED, result.status());
 * }
 * }</pre>
 *
 * <p>The test server skips time as Temporal's test environment does: {@code
 * workflowEnvironment().sleep(Duration.ofHours(2))} lets an approval expire at once. {@link
 * Builder#setTimeSkipping(boolean)} puts it on the wall clock instead.
 */
public final class AgentTestEnvironment implements AutoCloseable {
  /** The task queue of the worker, unless {@link Builder#setTaskQueue} names another. */
  public static final String DEFAULT_TASK_QUEUE = AgentClientOptions.DEFAULT_TASK_QUEUE;

  private final Path directory;
  private final boolean ownsDirectory;
  private final String projectionUrl;
  private final String taskQueue;
  private final AgentStore store;
  private final TestWorkflowEnvironment workflowEnvironment;
  private final Worker worker;
  private final ProjectionReader projection;
  private final AgentClient client;

  private AgentTestEnvironment(Builder builder) {
    this.ownsDirectory = builder.directory == null;
    this.directory = ownsDirectory ? createTemporaryDirectory() : builder.directory;
    this.taskQueue = builder.taskQueue;
    this.projectionUrl =
        builder.projectionUrl != null
            ? builder.projectionUrl
            : "jdbc:sqlite:" + directory.resolve("projection.db");
    AgentStore openedStore = null;
    TestWorkflowEnvironment startedEnvironment = null;
    try {
      openedStore = AgentStores.open(projectionUrl);
      AgentsPluginOptions.Builder options =
          AgentsPluginOptions.newBuilder()
              .setStore(openedStore)
              .setArtifactStore(new FileArtifactStore(directory.resolve("artifacts")));
      builder.agents.forEach(options::addAgent);
      if (builder.modelProvider != null) {
        options.setModelProvider(builder.modelProvider);
      }
      builder.pluginOptions.forEach(customize -> customize.accept(options));
      AgentsPlugin plugin = new AgentsPlugin(options.build());
      startedEnvironment =
          TestWorkflowEnvironment.newInstance(
              TestEnvironmentOptions.newBuilder()
                  .setWorkerFactoryOptions(
                      WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                  .setUseTimeskipping(builder.timeSkipping)
                  .build());
      this.worker = startedEnvironment.newWorker(taskQueue);
      startedEnvironment.start();
      this.projection = ProjectionReader.open(projectionUrl);
      this.client =
          AgentClient.newInstance(
              startedEnvironment.getWorkflowClient(),
              AgentClientOptions.newBuilder()
                  .setTaskQueue(taskQueue)
                  .setProjection(projection)
                  .build());
    } catch (RuntimeException | Error e) {
      if (startedEnvironment != null) {
        startedEnvironment.close();
      }
      if (openedStore != null) {
        openedStore.close();
      }
      deleteDirectory();
      throw e;
    }
    this.store = openedStore;
    this.workflowEnvironment = startedEnvironment;
  }

  /** A builder; add agents and a model, then {@link Builder#start()}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** The client of your application, on this environment's Temporal and projection. */
  public AgentClient client() {
    return client;
  }

  /** The store the plugin writes: transcripts, checkpoints, sessions and approvals. */
  public AgentStore store() {
    return store;
  }

  /** The JDBC URL of the projection, for a {@link ProjectionReader} or the {@code agents} CLI. */
  public String projectionUrl() {
    return projectionUrl;
  }

  /** The directory of the projection file and the attachments. */
  public Path directory() {
    return directory;
  }

  /** The task queue the plugin's worker polls. */
  public String taskQueue() {
    return taskQueue;
  }

  /**
   * Temporal's test environment, for what the client does not cover: time ({@code sleep}, {@code
   * currentTimeMillis}), workflow histories, the service stubs.
   */
  public TestWorkflowEnvironment workflowEnvironment() {
    return workflowEnvironment;
  }

  /** The plugin's worker: register your own workflows or activities on it before the first send. */
  public Worker worker() {
    return worker;
  }

  /** The Temporal client of the environment, for workflows of your own. */
  public WorkflowClient workflowClient() {
    return workflowEnvironment.getWorkflowClient();
  }

  /** Stops Temporal and the worker, closes the store and deletes the directory it created. */
  @Override
  public void close() {
    try {
      workflowEnvironment.close();
    } finally {
      try {
        projection.close();
        store.close();
      } finally {
        deleteDirectory();
      }
    }
  }

  private static Path createTemporaryDirectory() {
    try {
      return Files.createTempDirectory("durable-agents-test-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a directory for the test environment", e);
    }
  }

  private void deleteDirectory() {
    if (!ownsDirectory) {
      return;
    }
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      // Best effort: a temporary directory left behind fails no test.
    }
  }

  /** Agents, a model and settings; {@link #start()} starts the environment. */
  public static final class Builder {
    private final List<Agent> agents = new ArrayList<>();
    private final List<Consumer<AgentsPluginOptions.Builder>> pluginOptions = new ArrayList<>();
    private ModelProvider modelProvider;
    private String taskQueue = DEFAULT_TASK_QUEUE;
    private String projectionUrl;
    private Path directory;
    private boolean timeSkipping = true;

    private Builder() {}

    /** An agent the plugin serves; the first one added is the default agent. */
    public Builder addAgent(Agent agent) {
      agents.add(Objects.requireNonNull(agent, "agent"));
      return this;
    }

    /** The model of agents that have none of their own. */
    public Builder setModelProvider(ModelProvider modelProvider) {
      this.modelProvider = Objects.requireNonNull(modelProvider, "modelProvider");
      return this;
    }

    /**
     * The {@link ScriptedModelProvider} playing {@code json}, {@code {"turns": [...]}}, as the
     * model of agents that have none of their own.
     *
     * @throws IllegalArgumentException for a malformed script, naming the turn and the field
     */
    public Builder setScript(String json) {
      return setModelProvider(ScriptedModelProvider.fromJson(json));
    }

    /** The task queue of the worker and the client (default {@code "agents"}). */
    public Builder setTaskQueue(String taskQueue) {
      this.taskQueue = Objects.requireNonNull(taskQueue, "taskQueue");
      return this;
    }

    /**
     * The projection database instead of a SQLite file in the directory, e.g. a PostgreSQL of your
     * test setup (its driver on the test classpath). Left as it is by {@link
     * AgentTestEnvironment#close()}.
     */
    public Builder setProjectionUrl(String jdbcUrl) {
      this.projectionUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
      return this;
    }

    /**
     * The directory of the projection file and the attachments, such as a JUnit {@code @TempDir},
     * instead of a temporary one; {@link AgentTestEnvironment#close()} leaves it, so a failed test
     * can be looked into.
     */
    public Builder setDirectory(Path directory) {
      this.directory = Objects.requireNonNull(directory, "directory");
      return this;
    }

    /** Whether the test server skips time, as Temporal's test environment does (default true). */
    public Builder setTimeSkipping(boolean timeSkipping) {
      this.timeSkipping = timeSkipping;
      return this;
    }

    /**
     * Further plugin settings (delta listeners, payload bound, transcript cache), applied after the
     * environment's store, attachments, agents and model.
     */
    public Builder addPluginOptions(Consumer<AgentsPluginOptions.Builder> customize) {
      pluginOptions.add(Objects.requireNonNull(customize, "customize"));
      return this;
    }

    /**
     * Opens the store, starts the test server and the worker.
     *
     * @throws IllegalStateException for plugin options that do not hold together (no agent, an
     *     agent without a model)
     */
    public AgentTestEnvironment start() {
      return new AgentTestEnvironment(this);
    }
  }
}
