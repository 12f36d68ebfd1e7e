package io.durableagents.session;

import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.model.ModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.plugin.SearchAttributeUpserts;
import io.durableagents.store.AgentStores;
import io.durableagents.store.StoreUnavailableException;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionSearchAttributes;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.common.SearchAttributeKey;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test environment with the real plugin, real activities, a real SQLite store and a scripted
 * model: only the Temporal service is the in-process test server.
 */
final class SessionTestKit implements AutoCloseable {
  static final String TASK_QUEUE = "agents-test";

  final TestWorkflowEnvironment env;
  final CheckpointStore store;
  final WorkflowClient client;

  /** The kit's worker: tests suspend its polling to deliver several messages in one task. */
  io.temporal.worker.Worker worker;

  private WorkerFactory factory;
  private final ModelProvider model;
  private java.util.function.UnaryOperator<Agent.Builder> customize;
  private final WorkerOptions workerOptions;

  /** Invocations per tool call id, across attempts: the tools' side effects. */
  final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  /** Calls the plugin made on the store, by method name. */
  final Map<String, AtomicInteger> storeCalls = new ConcurrentHashMap<>();

  /** Store methods that fail as if the database were down, with how many more of their calls do. */
  private final Map<String, AtomicInteger> storeOutages = new ConcurrentHashMap<>();

  /** The ranges of transcript the plugin read from the store, as "session from-to". */
  final List<String> messageReads = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The drift the workers reported to their metrics, as "agent policy", in order. */
  final List<String> driftReports = new java.util.concurrent.CopyOnWriteArrayList<>();

  /** Attachment bytes, in the test's directory. */
  final FileArtifactStore artifacts;

  /** How the test agent's model turns and tool calls run. */
  private Execution mode;

  /** The workers' transcript cache bound (see {@link #redeployKeepingTranscripts}). */
  private long transcriptCacheChars = AgentsPluginOptions.DEFAULT_TRANSCRIPT_CACHE_CHARS;

  /**
   * Whether the workers' sessions upsert their search attributes (see {@link
   * #registerSearchAttributes}).
   */
  private SearchAttributeUpserts searchAttributeUpserts = SearchAttributeUpserts.WHEN_REGISTERED;

  SessionTestKit(Path dir, ModelProvider model, int maxSteps) {
    this(dir, model, maxSteps, WorkerFactoryOptions.newBuilder());
  }

  SessionTestKit(
      Path dir, ModelProvider model, int maxSteps, WorkerFactoryOptions.Builder factory) {
    this(dir, model, agent -> agent.setMaxSteps(maxSteps), factory);
  }

  /** A kit whose model turns and tool calls all run in {@code mode}. */
  SessionTestKit(Path dir, ModelProvider model, int maxSteps, Execution mode) {
    this(dir, model, maxSteps, mode, WorkerOptions.newBuilder().build());
  }

  /** A kit whose workers (the first and any {@link #redeploy}ed one) have {@code workerOptions}. */
  SessionTestKit(
      Path dir, ModelProvider model, int maxSteps, Execution mode, WorkerOptions workerOptions) {
    this(
        dir,
        model,
        agent -> agent.setMaxSteps(maxSteps),
        WorkerFactoryOptions.newBuilder(),
        mode,
        workerOptions);
  }

  SessionTestKit(
      Path dir,
      ModelProvider model,
      java.util.function.UnaryOperator<Agent.Builder> customize,
      WorkerFactoryOptions.Builder factory) {
    this(dir, model, customize, factory, Execution.ACTIVITY);
  }

  /** A kit whose test agent is adjusted by {@code customize} (budgets, timeouts). */
  SessionTestKit(
      Path dir,
      ModelProvider model,
      java.util.function.UnaryOperator<Agent.Builder> customize,
      WorkerFactoryOptions.Builder factory,
      Execution mode) {
    this(dir, model, customize, factory, mode, WorkerOptions.newBuilder().build());
  }

  /**
   * The most general kit: the agent adjusted by {@code customize}, workers with {@code
   * workerOptions}.
   */
  SessionTestKit(
      Path dir,
      ModelProvider model,
      java.util.function.UnaryOperator<Agent.Builder> customize,
      WorkerFactoryOptions.Builder factory,
      Execution mode,
      WorkerOptions workerOptions) {
    this.mode = mode;
    this.workerOptions = workerOptions;
    this.model = model;
    this.customize = customize;
    artifacts = new FileArtifactStore(dir.resolve("artifacts"));
    store = CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("projection.db")));
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(factory.setPlugins(plugin()).build())
                .build());
    worker = env.newWorker(TASK_QUEUE, workerOptions);
    env.start();
    this.factory = env.getWorkerFactory();
    client = env.getWorkflowClient();
  }

  /** The plugin with the test agent, its model turns and tools in the kit's current mode. */
  private AgentsPlugin plugin() {
    return new AgentsPlugin(
        AgentsPluginOptions.newBuilder()
            .addAgent(customize.apply(agentBuilder().setModelExecution(mode)).build())
            .setModelProvider(model)
            .setArtifactStore(artifacts)
            .setStore(countingCalls(store))
            .setTranscriptCacheChars(transcriptCacheChars)
            .setSearchAttributeUpserts(searchAttributeUpserts)
            .setMetrics(
                new AgentMetrics() {
                  @Override
                  public void agentDrift(String agent, String policy) {
                    driftReports.add(agent + " " + policy);
                  }
                })
            .build());
  }

  /** {@code store}, counting each call in {@link #storeCalls}. */
  private CheckpointStore countingCalls(CheckpointStore real) {
    return (CheckpointStore)
        java.lang.reflect.Proxy.newProxyInstance(
            CheckpointStore.class.getClassLoader(),
            new Class<?>[] {CheckpointStore.class},
            (proxy, method, args) -> {
              storeCalls
                  .computeIfAbsent(method.getName(), name -> new AtomicInteger())
                  .incrementAndGet();
              AtomicInteger down = storeOutages.get(method.getName());
              if (down != null && down.getAndDecrement() > 0) {
                throw new StoreUnavailableException(
                    "CheckpointStore." + method.getName() + " failed: the test's database is down",
                    new java.sql.SQLException("Connection refused", "08001"));
              }
              if (method.getName().equals("readMessages")) {
                messageReads.add(
                    args[0] + " " + (args.length == 2 ? "0-" + args[1] : args[1] + "-" + args[2]));
              }
              try {
                return method.invoke(real, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /**
   * The next {@code calls} calls the plugin makes of store method {@code method} fail as they do
   * while the database is down ({@link StoreUnavailableException}); they are counted in {@link
   * #storeCalls} all the same.
   */
  void failStoreCalls(String method, int calls) {
    storeOutages.put(method, new AtomicInteger(calls));
  }

  /**
   * A deploy of a changed agent: the running worker shuts down, and a new one starts whose test
   * agent is adjusted by {@code newCustomize} instead.
   */
  void redeploy(java.util.function.UnaryOperator<Agent.Builder> newCustomize) {
    customize = newCustomize;
    redeploy(mode);
  }

  /**
   * A deploy: the running worker shuts down, and a new one starts on the same task queue whose
   * agent runs its model turns and tools in {@code newMode}.
   */
  void redeploy(Execution newMode) {
    factory.shutdown();
    factory.awaitTermination(30, java.util.concurrent.TimeUnit.SECONDS);
    mode = newMode;
    factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin()).build());
    worker = factory.newWorker(TASK_QUEUE, workerOptions);
    factory.start();
  }

  /**
   * Registers the sessions' search attributes on the test server and deploys workers in {@code
   * upserts} mode: the test server cannot list them, so only {@code ALWAYS} upserts them.
   */
  void registerSearchAttributes(SearchAttributeUpserts upserts) {
    for (SearchAttributeKey<?> key : SessionSearchAttributes.ALL) {
      env.registerSearchAttribute(key.getName(), key.getValueType());
    }
    searchAttributeUpserts = upserts;
    redeploy(mode);
  }

  /** A deploy of workers that keep at most {@code chars} characters of transcripts (0: none). */
  void redeployKeepingTranscripts(long chars) {
    transcriptCacheChars = chars;
    redeploy(mode);
  }

  Agent.Builder agentBuilder() {
    return Agent.newBuilder("tester")
        .setModel("scripted")
        .setInstructions("test agent")
        .setApprovalTimeout(java.time.Duration.ofHours(1))
        .setTools(
            Tool.newBuilder("add")
                .setExecution(mode)
                .setDescription("Adds two integers.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
                        + "\"required\":[\"a\",\"b\"]}")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      return Map.of("sum", args.get("a").asLong() + args.get("b").asLong());
                    })
                .build(),
            Tool.newBuilder("echo")
                .setExecution(mode)
                .setDescription("Echoes its text.")
                .setHandler(
                    EchoInput.class,
                    (in, ctx) -> {
                      effect(ctx.toolCallId());
                      return Map.of("echo", in.text());
                    })
                .build(),
            Tool.newBuilder("boom")
                .setExecution(mode)
                .setDescription("Always throws.")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      throw new IllegalStateException("boom went the tool");
                    })
                .build(),
            Tool.newBuilder("pay")
                .setExecution(mode)
                .setDescription("Pays an amount; amounts over 100 need approval.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"amount\":{\"type\":\"integer\"}},\"required\":[\"amount\"]}")
                .setApprovalPolicy(args -> args.get("amount").asInt() > 100)
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      return Map.of("paid", args.get("amount").asInt());
                    })
                .build(),
            Tool.newBuilder("slow")
                .setExecution(mode)
                .setDescription("Takes a while (test time).")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      Thread.sleep(args.path("ms").asLong(2000));
                      return Map.of("slept", true);
                    })
                .build(),
            Tool.newBuilder("big")
                .setExecution(mode)
                .setDescription("Returns a string of the given size.")
                .setHandler((args, ctx) -> Map.of("data", "x".repeat(args.path("size").asInt(10))))
                .build(),
            Tool.newBuilder("trigger_info")
                .setExecution(mode)
                .setDescription("What started the run.")
                .setHandler(
                    (args, ctx) ->
                        Map.of(
                            "id", ctx.trigger().id(),
                            "thread", ctx.trigger().thread(),
                            "keys", ctx.trigger().keys()))
                .build(),
            Tool.newBuilder("remember")
                .setExecution(mode)
                .setDescription(
                    "Merges its arguments into the business state; returns the state it sees.")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      ctx.businessState().update(args);
                      return ctx.businessState().get();
                    })
                .build(),
            Tool.newBuilder("recall")
                .setExecution(mode)
                .setDescription("Returns the business state.")
                .setHandler((args, ctx) -> ctx.businessState().get())
                .build(),
            Tool.newBuilder("remember_then_fail")
                .setExecution(mode)
                .setDescription("Updates the business state, then throws.")
                .setHandler(
                    (args, ctx) -> {
                      ctx.businessState().update(args);
                      throw new IllegalStateException("failed after updating");
                    })
                .build(),
            Tool.newBuilder("flaky")
                .setExecution(mode)
                .setDescription("Fails transiently twice, then answers.")
                .setMaxAttempts(5)
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      if (ctx.attempt() < 3) {
                        throw new RetryableToolException("try again");
                      }
                      return Map.of("attempt", ctx.attempt());
                    })
                .build());
  }

  record EchoInput(String text) {}

  private void effect(String toolCallId) {
    effects.computeIfAbsent(toolCallId, id -> new AtomicInteger()).incrementAndGet();
  }

  /** What AgentClient.send does: update-with-start on the session's workflow. */
  RunResult send(String sessionId, String input) {
    return send(sessionId, input, null);
  }

  RunResult send(String sessionId, String input, Integer maxSteps) {
    return send(sessionId, input, maxSteps, null);
  }

  /** Sends like AgentClient: follows a "continued" answer by attaching again. */
  RunResult send(String sessionId, String input, Integer maxSteps, Integer continueAfterEvents) {
    RunResult result = sendOnce(sessionId, input, maxSteps, continueAfterEvents);
    while (result != null && result.isContinued()) {
      result = session(sessionId).send(new SendRequest(""));
    }
    return result;
  }

  private RunResult sendOnce(
      String sessionId, String input, Integer maxSteps, Integer continueAfterEvents) {
    return updateWithStart(
        new SendRequest(input),
        new SessionStart(sessionId, null, maxSteps, null, null, continueAfterEvents));
  }

  /** Sends {@code request} as update-with-start, as AgentClient does. */
  RunResult send(String sessionId, SendRequest request) {
    return updateWithStart(request, new SessionStart(sessionId, null, null));
  }

  /** What a trigger source does: update-with-start with the envelope as the input. */
  RunResult sendTrigger(String sessionId, TriggerEnvelope trigger) {
    return updateWithStart(SendRequest.ofTrigger(trigger), new SessionStart(sessionId, null, null));
  }

  /** What AgentClient.fork does: starts {@code forkId} from a kept entry of {@code source}. */
  void startFork(String source, int step, ForkPatch patch, String forkId) {
    AgentSessionWorkflow stub =
        client.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId(forkId).setTaskQueue(TASK_QUEUE).build());
    WorkflowClient.start(
        stub::run, new SessionStart(forkId, null, null, new ForkSource(source, step, patch)));
  }

  /**
   * Starts a fork as {@code AgentClient} does, in one call with its {@code forkPrepared} update,
   * and returns the answer: the prepared fork's status, or why it was refused.
   */
  io.durableagents.workflow.internal.wire.ForkOutcome forkPrepared(
      String source, int step, ForkPatch patch, String forkId) {
    AgentSessionWorkflow stub =
        client.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(forkId)
                .setTaskQueue(TASK_QUEUE)
                .setWorkflowIdConflictPolicy(
                    io.temporal.api.enums.v1.WorkflowIdConflictPolicy
                        .WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .build());
    return WorkflowClient.executeUpdateWithStart(
        stub::forkPrepared,
        io.temporal.client.UpdateOptions.newBuilder(
                io.durableagents.workflow.internal.wire.ForkOutcome.class)
            .setUpdateName("forkPrepared")
            .setWaitForStage(io.temporal.client.WorkflowUpdateStage.COMPLETED)
            .build(),
        new io.temporal.client.WithStartWorkflowOperation<>(
            stub::run, new SessionStart(forkId, null, null, new ForkSource(source, step, patch))));
  }

  /**
   * What AgentClient.reset does once the session is closed: starts the session's new workflow that
   * moves it back to its entry {@code step}, with its {@code forkPrepared} update, and returns the
   * answer.
   */
  io.durableagents.workflow.internal.wire.ForkOutcome resetPrepared(String sessionId, int step) {
    AgentSessionWorkflow stub =
        client.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(sessionId)
                .setTaskQueue(TASK_QUEUE)
                .setWorkflowIdConflictPolicy(
                    io.temporal.api.enums.v1.WorkflowIdConflictPolicy
                        .WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .build());
    return WorkflowClient.executeUpdateWithStart(
        stub::forkPrepared,
        io.temporal.client.UpdateOptions.newBuilder(
                io.durableagents.workflow.internal.wire.ForkOutcome.class)
            .setUpdateName("forkPrepared")
            .setWaitForStage(io.temporal.client.WorkflowUpdateStage.COMPLETED)
            .build(),
        new io.temporal.client.WithStartWorkflowOperation<>(
            stub::run, SessionStart.reset(sessionId, step)));
  }

  /** {@link #startFork}, then waits for the fork to settle or pause. */
  RunResult fork(String source, int step, ForkPatch patch, String forkId) {
    startFork(source, step, patch, forkId);
    return attach(forkId);
  }

  private RunResult updateWithStart(SendRequest request, SessionStart start) {
    return SessionUpdates.sendWithStart(client, TASK_QUEUE, request, start);
  }

  AgentSessionWorkflow session(String sessionId) {
    return client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
  }

  /** Waits for the run in progress to settle or pause, like AgentClient.send with empty input. */
  RunResult attach(String sessionId) {
    RunResult result = session(sessionId).send(new SendRequest(""));
    while (result != null && result.isContinued()) {
      result = session(sessionId).send(new SendRequest(""));
    }
    return result;
  }

  /** Workflow runs of the session that closed: one per continue-as-new, plus a finished one. */
  long closedRuns(String sessionId) {
    return env
        .getWorkflowServiceStubs()
        .blockingStub()
        .listClosedWorkflowExecutions(
            io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest.newBuilder()
                .setNamespace("default")
                .build())
        .getExecutionsList()
        .stream()
        .filter(e -> e.getExecution().getWorkflowId().equals(sessionId))
        .count();
  }

  @Override
  public void close() {
    if (factory != env.getWorkerFactory()) {
      factory.shutdownNow();
    }
    env.close();
    store.close();
  }
}
