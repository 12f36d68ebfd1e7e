package io.durableagents.app.bench;

import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.cli.CliException;
import io.durableagents.cli.ExitCodes;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.activity.ActivityNames;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The measurements of {@code agents bench}: the plugin in this process, the hand-written {@link
 * Baseline} step loops in a plain worker process of their own ({@link BenchWorkerCommand}), against
 * the embedded Temporal test server and a temporary SQLite projection unless told otherwise. The
 * step profile and the approval probe time both sides in this process, where its interceptor and
 * clock can see them.
 *
 * <p>Every figure is measured in this run; ratios compare measurements taken close together (plugin
 * and baseline rounds alternate). Nothing here asserts a threshold.
 */
final class Bench implements AutoCloseable {
  static final String MODEL_TURN = ActivityNames.PREFIX + "ModelTurn";
  private static final long WAIT_SECONDS = 120;

  /** A one-session step round runs sessions one after the other for at least this long. */
  private static final long MIN_ROUND_MS = 250;

  /** Pause between reaching a wait point and deciding it, on both sides. */
  private static final long SETTLE_MS = 20;

  private final BenchConfig config;
  private final PrintWriter progress;
  private final String prefix;
  private final String mainQueue;
  private final String longQueue;
  private final String waitQueue;
  private final String profileQueue;
  private final String baselineQueue;
  private final ProbeClock clock = new ProbeClock();
  private final List<Agent> agents;
  private final boolean externalTemporal;
  private final boolean externalProjection;
  private final AtomicInteger ids = new AtomicInteger();
  private final List<String> started = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, WorkerFactory> factories = new LinkedHashMap<>();
  private final ExecutorService pool;

  private EmbeddedTemporalServer server;
  private Path tempDir;
  private AgentsCommandProcess baselineWorker;
  private WorkflowServiceStubs service;
  private WorkflowClient client;
  private AgentStore store;
  private String targetDescription;

  /** The report's {@code server}: "embedded", or the address of the Temporal given. */
  private String serverName;

  /** A plugin session of the last concurrent round of each mode, to see where its time went. */
  private final Map<StepMode, String> lastConcurrentSession = new ConcurrentHashMap<>();

  /**
   * @param temporal HOST:PORT of an existing Temporal, or null for the embedded test server
   * @param projection JDBC URL of an existing projection, or null for a temporary SQLite file
   */
  Bench(
      BenchConfig config,
      String temporal,
      String namespace,
      String projection,
      PrintWriter progress) {
    this.config = config;
    this.progress = progress;
    this.prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    this.mainQueue = prefix;
    this.longQueue = prefix + "-long";
    this.waitQueue = prefix + "-wait";
    this.profileQueue = prefix + "-profile";
    this.baselineQueue = prefix + "-baseline";
    this.agents = BenchAgents.create(config, clock);
    this.externalTemporal = temporal != null;
    this.externalProjection = projection != null;
    AtomicInteger threads = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            Math.max(config.concurrency(), 32),
            task -> {
              Thread thread = new Thread(task, "bench-client-" + threads.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try {
      open(temporal, namespace, projection);
    } catch (RuntimeException | IOException e) {
      close();
      throw e instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(e.getMessage(), e);
    }
  }

  private void open(String temporal, String namespace, String projection) throws IOException {
    String address;
    if (temporal == null) {
      server = EmbeddedTemporalServer.startSticky(0);
      address = server.address();
    } else {
      address = temporal;
    }
    service = connect(address);
    tempDir = Files.createTempDirectory("agents-bench");
    baselineWorker = startBaselineWorker(address, namespace);
    String url;
    if (projection == null) {
      url = "jdbc:sqlite:" + tempDir.resolve("projection.db");
    } else {
      url = projection;
    }
    serverName = temporal == null ? "embedded" : temporal;
    targetDescription =
        (temporal == null
                ? "embedded Temporal test server (in this process)"
                : "Temporal at " + temporal)
            + ", "
            + (projection == null
                ? "temporary SQLite projection"
                : "projection " + redact(projection));
    store = AgentStores.open(url);
    client =
        WorkflowClient.newInstance(
            service, WorkflowClientOptions.newBuilder().setNamespace(namespace).build());
    startFactory(mainQueue, -1, true);
    startFactory(longQueue, 1, true);
  }

  /**
   * The hand-written step loops' worker: a process of its own with the SDK's defaults ({@link
   * BenchWorkerCommand}), so a ratio compares the plugin with a plain worker, not with code that
   * shares the plugin's JVM, threads and heap.
   */
  private AgentsCommandProcess startBaselineWorker(String address, String namespace) {
    return BenchWorkerCommand.launch(
        tempDir,
        "baseline-worker",
        List.of("--temporal", address, "--namespace", namespace, "--task-queue", baselineQueue));
  }

  /**
   * Stubs for {@code address}; a server that does not answer ends the bench at once, exit code 1.
   */
  private static WorkflowServiceStubs connect(String address) {
    try {
      return AgentWorker.connect(address);
    } catch (IllegalStateException e) {
      Throwable cause = e;
      while (cause.getCause() != null && cause.getCause() != cause) {
        cause = cause.getCause();
      }
      throw new CliException(
          ExitCodes.ERROR,
          "Cannot reach Temporal at "
              + address
              + ": "
              + cause.getMessage()
              + " (start one with 'temporal server start-dev', or leave out --temporal to bench on the"
              + " embedded server).",
          e);
    }
  }

  /** A JDBC URL without its query string (which may hold a password). */
  private static String redact(String url) {
    int query = url.indexOf('?');
    return query < 0 ? url : url.substring(0, query) + "?…";
  }

  String target() {
    return targetDescription;
  }

  /** Runs every measurement, in an order that keeps them from disturbing each other. */
  BenchReport run() {
    BenchReport report = new BenchReport(config, targetDescription, serverName);
    report.put("loadAverageAtStart", loadAverage());
    long t0 = System.nanoTime();
    section("agent steps vs the baseline workflow", () -> measureSteps(report));
    section("approval to resume", () -> measureApprovals(report));
    String longId = nextId("long");
    RunResult longRun = sectionWithResult("history growth", () -> measureHistory(report, longId));
    section("fork latency", () -> measureForks(report, longId, longRun));
    section("cold replay", () -> measureColdReplay(report, longId));
    section("memory per waiting session", () -> measureMemory(report));
    report.put("benchSeconds", (System.nanoTime() - t0) / 1e9);
    report.put("loadAverageAtEnd", loadAverage());
    return report;
  }

  /**
   * The scale bench's figures of one long session and of many waiting ones: history bytes per turn
   * at both ends of a {@code historyTurns}-turn session, and worker heap per session with {@code
   * waitingSessions} sessions waiting for an approval.
   */
  BenchReport growthAndMemory() {
    BenchReport report = new BenchReport(config, targetDescription, serverName);
    String longId = nextId("long");
    sectionWithResult("history growth", () -> measureHistory(report, longId));
    section("memory per waiting session", () -> measureMemory(report));
    return report;
  }

  private void section(String name, Runnable body) {
    sectionWithResult(
        name,
        () -> {
          body.run();
          return null;
        });
  }

  private <T> T sectionWithResult(String name, Supplier<T> body) {
    progress.println("bench: " + name + "…");
    progress.flush();
    long t0 = System.nanoTime();
    T result = body.get();
    progress.printf("bench:   %s took %.1f s%n", name, (System.nanoTime() - t0) / 1e9);
    progress.flush();
    return result;
  }

  // ---- steps ----------------------------------------------------------------------------

  /**
   * How the step agents and the baseline run their model turn and tool: both as activities (the
   * default), or both as local activities. Each mode's figures are its keys with a prefix.
   */
  enum StepMode {
    ACTIVITY("", "default mode", BenchAgents.STEP_1, BenchAgents.STEP_N),
    LOCAL("local", "local mode", BenchAgents.STEP_1_LOCAL, BenchAgents.STEP_N_LOCAL);

    private final String prefix;
    final String label;
    private final String agent1;
    private final String agentN;

    StepMode(String prefix, String label, String agent1, String agentN) {
      this.prefix = prefix;
      this.label = label;
      this.agent1 = agent1;
      this.agentN = agentN;
    }

    int steps(BenchConfig config, boolean concurrent) {
      if (this == LOCAL) {
        return concurrent ? config.localStepsPerSessionN() : config.localStepsPerSession1();
      }
      return concurrent ? config.stepsPerSessionN() : config.stepsPerSession1();
    }

    /** {@code stepsPerSecond1} → {@code stepsPerSecond1} / {@code localStepsPerSecond1}. */
    String key(String key) {
      return prefix.isEmpty()
          ? key
          : prefix + Character.toUpperCase(key.charAt(0)) + key.substring(1);
    }

    String agent(boolean concurrent) {
      return concurrent ? agentN : agent1;
    }
  }

  /**
   * Both modes, at 1 and at {@code concurrency} sessions. Within a round every kind runs once, the
   * plugin and its baseline next to each other; the order of sides and of modes flips every round
   * so drift (JIT, GC, a growing server, other processes) favours none of them.
   */
  private void measureSteps(BenchReport report) {
    StepMode[] modes = StepMode.values();
    for (int i = 0; i < config.warmupRounds(); i++) {
      for (boolean concurrent : new boolean[] {false, true}) {
        for (StepMode mode : modes) {
          stepRound(mode, true, concurrent);
          stepRound(mode, false, concurrent);
        }
      }
    }
    List<Double> load = new ArrayList<>();
    for (boolean concurrent : new boolean[] {false, true}) {
      Map<StepMode, List<Double>> plugin = new EnumMap<>(StepMode.class);
      Map<StepMode, List<Double>> baseline = new EnumMap<>(StepMode.class);
      Map<StepMode, List<Double>> ratios = new EnumMap<>(StepMode.class);
      for (StepMode mode : modes) {
        plugin.put(mode, new ArrayList<>());
        baseline.put(mode, new ArrayList<>());
        ratios.put(mode, new ArrayList<>());
      }
      for (int round = 0; round < config.rounds(); round++) {
        boolean even = round % 2 == 0;
        for (int m = 0; m < modes.length; m++) {
          StepMode mode = modes[even ? m : modes.length - 1 - m];
          double p;
          double b;
          if (even) {
            p = stepRound(mode, true, concurrent);
            b = stepRound(mode, false, concurrent);
          } else {
            b = stepRound(mode, false, concurrent);
            p = stepRound(mode, true, concurrent);
          }
          plugin.get(mode).add(p);
          baseline.get(mode).add(b);
          ratios.get(mode).add(b / p);
        }
        load.add(loadAverage());
      }
      String suffix = concurrent ? "64" : "1";
      for (StepMode mode : modes) {
        report.put(mode.key("stepsPerSecond" + suffix), median(plugin.get(mode)));
        report.put(mode.key("baselineStepsPerSecond" + suffix), median(baseline.get(mode)));
        report.put(mode.key("stepOverheadRatio" + suffix), median(ratios.get(mode)));
        progress.printf(
            "bench:   %s, %s: plugin %s steps/s, baseline %s steps/s, per-round ratios %s%n",
            mode.label,
            concurrent ? config.concurrency() + " sessions" : "1 session",
            BenchReport.format(median(plugin.get(mode))),
            BenchReport.format(median(baseline.get(mode))),
            formatList(ratios.get(mode)));
      }
      progress.flush();
    }
    for (StepMode mode : modes) {
      report.put(mode.key("stepOverheadRatio"), report.get(mode.key("stepOverheadRatio1")));
    }
    report.put("loadAverageDuringSteps", median(load));
    for (StepMode mode : modes) {
      String session = lastConcurrentSession.get(mode);
      if (session != null) {
        List<HistoryEvent> events = new ArrayList<>();
        historyChain(session).forEach(events::addAll);
        report.activityTimings(
            mode, config.concurrency() + " sessions at once", ActivityTimings.of(events));
      }
    }
    profileSteps(report);
  }

  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  /** One round; answers agent steps per second. */
  private double stepRound(StepMode mode, boolean plugin, boolean concurrent) {
    int sessions = concurrent ? config.concurrency() : config.sessionsPerRound1();
    int steps = mode.steps(config, concurrent);
    long t0 = System.nanoTime();
    if (concurrent) {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        futures.add(pool.submit(() -> stepSession(mainQueue, mode, plugin, steps, concurrent)));
      }
      futures.forEach(Bench::await);
    } else {
      // At least MIN_ROUND_MS: a local baseline session takes a few ms, and a round that short
      // measures the scheduler more than the workflow.
      long minEnd = t0 + TimeUnit.MILLISECONDS.toNanos(MIN_ROUND_MS);
      int done = 0;
      while (done < sessions || System.nanoTime() < minEnd) {
        stepSession(mainQueue, mode, plugin, steps, concurrent);
        done++;
      }
      sessions = done;
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return sessions * (double) steps / seconds;
  }

  /** Runs one session of {@code steps} steps on {@code queue}; answers its workflow id. */
  private String stepSession(
      String queue, StepMode mode, boolean plugin, int steps, boolean concurrent) {
    if (plugin) {
      String id = nextId(mode == StepMode.LOCAL ? "step-local" : "step");
      RunResult result =
          agents(queue)
              .send(id, "go", SendOptions.newBuilder().setAgent(mode.agent(concurrent)).build());
      require(
          RunStatus.FINISHED.equals(result.status())
              && result.steps() == steps + 1
              && result.toolCalls().size() == steps,
          id,
          result);
      if (concurrent) {
        lastConcurrentSession.put(mode, id);
      }
      return id;
    }
    String id = nextId(mode == StepMode.LOCAL ? "base-local" : "base");
    // The profile times the baseline on its own worker; the measured rounds use the plain one.
    WorkflowOptions options = options(id, queue.equals(profileQueue) ? queue : baselineQueue);
    int done =
        mode == StepMode.LOCAL
            ? client.newWorkflowStub(Baseline.LocalSteps.class, options).run(steps)
            : client.newWorkflowStub(Baseline.Steps.class, options).run(steps);
    if (done != steps) {
      throw new IllegalStateException("baseline " + id + " ran " + done + " steps");
    }
    return id;
  }

  /**
   * Where a step's time goes, one session at a time, on a worker of its own whose interceptor times
   * every call (the measured rounds run without it): after one unmeasured session of each kind,
   * {@code rounds} sessions of each, the kinds taking turns so that a burst of load on the machine
   * falls on all of them alike.
   */
  private void profileSteps(BenchReport report) {
    StepProfiler profiler = new StepProfiler();
    WorkerFactory factory = startFactory(profileQueue, -1, true, profiler);
    try {
      for (StepMode mode : StepMode.values()) {
        for (boolean plugin : new boolean[] {true, false}) {
          stepSession(profileQueue, mode, plugin, mode.steps(config, false), false);
        }
      }
      int sessions = config.rounds();
      Map<String, ProfileSums> sums = new LinkedHashMap<>();
      for (int i = 0; i < sessions; i++) {
        for (StepMode mode : StepMode.values()) {
          for (boolean plugin : new boolean[] {true, false}) {
            ProfileSums sum = sums.computeIfAbsent(mode + "/" + plugin, k -> new ProfileSums());
            profiler.reset();
            long t0 = System.nanoTime();
            sum.lastSession =
                stepSession(profileQueue, mode, plugin, mode.steps(config, false), false);
            sum.nanos += System.nanoTime() - t0;
            StepProfiler.merge(sum.byType, profiler.snapshot());
            DispatchTimes times = DispatchTimes.of(historyOf(sum.lastSession));
            sum.workflowTasks += times.workflowTasks();
            sum.workflowTaskMs += times.workflowTaskRunMs();
            sum.workflowTaskWaitMs += times.workflowTaskWaitMs();
            sum.activityWaitMs += times.activityWaitMs();
          }
        }
      }
      for (StepMode mode : StepMode.values()) {
        int steps = mode.steps(config, false);
        int allSteps = sessions * steps;
        for (boolean plugin : new boolean[] {true, false}) {
          ProfileSums sum = sums.get(mode + "/" + plugin);
          StepProfile profile =
              new StepProfile(
                  sessions,
                  steps,
                  sum.nanos / 1e6 / allSteps,
                  StepProfile.roles(sum.byType, allSteps),
                  anatomyOf(sum.lastSession, steps),
                  sum.workflowTasks / sessions,
                  sum.workflowTaskMs / allSteps,
                  sum.workflowTaskWaitMs / allSteps,
                  sum.activityWaitMs / allSteps);
          report.stepProfile(mode, plugin, profile);
          if (plugin && mode == StepMode.LOCAL) {
            // The default mode's anatomy is activitiesPerStep etc., from the long session.
            report.put("localModeActivitiesPerStep", profile.anatomy().activities);
            report.put("localModeLocalActivitiesPerStep", profile.anatomy().localActivities);
            report.put("localModeWorkflowTasksPerStep", profile.anatomy().workflowTasks);
            report.put("localModeHistoryEventsPerStep", profile.anatomy().events);
            report.put("localModeHistoryBytesPerStep", profile.anatomy().bytes);
          }
          if (plugin) {
            String prefix = mode == StepMode.LOCAL ? "localMode" : "defaultMode";
            report.put(prefix + "WorkflowTaskWaitMsPerStep", profile.workflowTaskWaitMsPerStep());
            report.put(prefix + "WorkflowTaskRunMsPerStep", profile.workflowTaskMsPerStep());
            report.put(prefix + "ActivityWaitMsPerStep", profile.activityWaitMsPerStep());
          }
        }
      }
    } finally {
      factories.remove(profileQueue);
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /**
   * {@code --anatomy}: each kind of step session, one at a time, the plugin on a worker whose
   * interceptor times every call and the hand-written loop in its own worker process; each step
   * taken apart from the histories. After one unmeasured session of each kind, {@code rounds}
   * sessions of each, the kinds taking turns.
   */
  List<AnatomyRow> anatomy() {
    StepProfiler profiler = new StepProfiler();
    WorkerFactory factory = startFactory(profileQueue, -1, false, profiler);
    try {
      return sectionWithResult("step anatomy", () -> measureAnatomy(profiler));
    } finally {
      factories.remove(profileQueue);
      factory.shutdown();
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private List<AnatomyRow> measureAnatomy(StepProfiler profiler) {
    boolean[] sides = {true, false};
    for (StepMode mode : StepMode.values()) {
      for (boolean plugin : sides) {
        anatomySession(mode, plugin);
      }
    }
    Map<String, ProfileSums> sums = new LinkedHashMap<>();
    Map<String, DispatchTimes> times = new LinkedHashMap<>();
    Map<String, HistoryCost> costs = new LinkedHashMap<>();
    for (int i = 0; i < config.rounds(); i++) {
      for (StepMode mode : StepMode.values()) {
        for (boolean plugin : sides) {
          String kind = mode + "/" + plugin;
          ProfileSums sum = sums.computeIfAbsent(kind, k -> new ProfileSums());
          profiler.reset();
          long t0 = System.nanoTime();
          String id = anatomySession(mode, plugin);
          sum.nanos += System.nanoTime() - t0;
          StepProfiler.merge(sum.byType, profiler.snapshot());
          List<HistoryEvent> history = historyOf(id);
          times.merge(kind, DispatchTimes.of(history), DispatchTimes::plus);
          costs.merge(kind, HistoryCost.of(history), HistoryCost::plus);
        }
      }
    }
    List<AnatomyRow> rows = new ArrayList<>();
    for (StepMode mode : StepMode.values()) {
      int steps = mode.steps(config, false);
      int allSteps = config.rounds() * steps;
      for (boolean plugin : sides) {
        String kind = mode + "/" + plugin;
        ProfileSums sum = sums.get(kind);
        rows.add(
            new AnatomyRow(
                mode,
                plugin,
                config.rounds(),
                steps,
                sum.nanos / 1e6 / allSteps,
                times.get(kind),
                costs.get(kind),
                plugin ? StepProfile.roles(sum.byType, allSteps) : Map.of()));
      }
    }
    return rows;
  }

  /** The plugin on the profiled worker, the baseline on its own worker process. */
  private String anatomySession(StepMode mode, boolean plugin) {
    return stepSession(
        plugin ? profileQueue : baselineQueue, mode, plugin, mode.steps(config, false), false);
  }

  /** What the profiled sessions of one kind added up to. */
  private static final class ProfileSums {
    final Map<String, StepProfiler.Totals> byType = new LinkedHashMap<>();
    long nanos;
    double workflowTasks;
    double workflowTaskMs;
    double workflowTaskWaitMs;
    double activityWaitMs;
    String lastSession;
  }

  /** The events of {@code workflowId}'s runs, oldest first. */
  private List<HistoryEvent> historyOf(String workflowId) {
    List<HistoryEvent> events = new ArrayList<>();
    historyChain(workflowId).forEach(events::addAll);
    return events;
  }

  /** A step session's events from its first model turn to its last (the answer), per step. */
  private StepAnatomy anatomyOf(String workflowId, int steps) {
    List<HistoryEvent> events = historyOf(workflowId);
    List<Integer> turns = StepAnatomy.modelTurnStarts(events);
    if (turns.size() != steps + 1) {
      throw new IllegalStateException(
          workflowId
              + " has "
              + turns.size()
              + " model turns in its history, expected "
              + (steps + 1));
    }
    return StepAnatomy.of(events, turns.get(0), turns.get(steps), steps);
  }

  // ---- approvals ------------------------------------------------------------------------

  private void measureApprovals(BenchReport report) {
    List<Double> signal = new ArrayList<>();
    List<Double> update = new ArrayList<>();
    List<Double> raw = new ArrayList<>();
    int warmup = Math.min(2, config.approvalSamples());
    for (int i = -warmup; i < config.approvalSamples(); i++) {
      double s = approvalSample(true);
      double r = rawSignalSample();
      double u = approvalSample(false);
      if (i >= 0) {
        signal.add(s);
        raw.add(r);
        update.add(u);
      }
    }
    double p50 = median(signal);
    double rawP50 = median(raw);
    report.put("approvalResumeMsP50", p50);
    report.put("approvalResumeRatio", p50 / rawP50);
    report.put("approvalResumeUpdateMsP50", median(update));
    report.put("baselineSignalResumeMsP50", rawP50);
  }

  /** A session paused at the gated tool; ms from the decision to the tool's handler starting. */
  private double approvalSample(boolean bySignal) {
    String id = nextId(bySignal ? "approve-signal" : "approve-update");
    AgentClient agentsClient = agents(mainQueue);
    RunResult paused =
        agentsClient.send(
            id, "go", SendOptions.newBuilder().setAgent(BenchAgents.APPROVAL).build());
    require(
        RunStatus.AWAITING_APPROVAL.equals(paused.status()) && paused.approval() != null,
        id,
        paused);
    Approval approval = paused.approval();
    CompletableFuture<Long> toolStarted = clock.expect(id);
    sleep(SETTLE_MS);
    AgentSessionWorkflow session = client.newWorkflowStub(AgentSessionWorkflow.class, id);
    Decision decision = new Decision(approval.approvalId(), true, "bench", "bench");
    long t0 = System.nanoTime();
    if (bySignal) {
      session.decide(decision);
    } else {
      session.approve(decision);
    }
    long startedAt = await(toolStarted);
    clock.forget(id);
    RunResult done = agentsClient.awaitRun(id);
    require(RunStatus.FINISHED.equals(done.status()), id, done);
    return (startedAt - t0) / 1e6;
  }

  /** The baseline: ms from a raw signal to the start of the activity it unblocks. */
  private double rawSignalSample() {
    String id = nextId("probe");
    Baseline.SignalProbe probe =
        client.newWorkflowStub(Baseline.SignalProbe.class, options(id, mainQueue));
    WorkflowClient.start(probe::run, id);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!isWaiting(probe)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("baseline probe " + id + " never reached its wait");
      }
      sleep(5);
    }
    CompletableFuture<Long> activityStarted = clock.expect(id);
    sleep(SETTLE_MS);
    long t0 = System.nanoTime();
    probe.go();
    long startedAt = await(activityStarted);
    clock.forget(id);
    try {
      WorkflowStub.fromTyped(probe).getResult(WAIT_SECONDS, TimeUnit.SECONDS, Void.class);
    } catch (TimeoutException e) {
      throw new IllegalStateException("baseline probe " + id + " did not complete", e);
    }
    return (startedAt - t0) / 1e6;
  }

  private static boolean isWaiting(Baseline.SignalProbe probe) {
    try {
      return probe.waiting();
    } catch (RuntimeException e) {
      return false; // not started on the worker yet
    }
  }

  // ---- history --------------------------------------------------------------------------

  private RunResult measureHistory(BenchReport report, String longId) {
    int turns = config.historyTurns();
    RunResult result =
        agents(longQueue)
            .send(longId, "go", SendOptions.newBuilder().setAgent(BenchAgents.LONG).build());
    require(
        RunStatus.FINISHED.equals(result.status())
            && result.steps() == turns + 1
            && result.toolCalls().size() == turns,
        longId,
        result);
    List<List<HistoryEvent>> runs = historyChain(longId);
    List<HistoryEvent> events = new ArrayList<>();
    runs.forEach(events::addAll);
    List<Integer> turnStarts = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      if (isModelTurnScheduled(events.get(i))) {
        turnStarts.add(i);
      }
    }
    if (turnStarts.size() < config.lateTo() + 1) {
      throw new IllegalStateException(
          "session "
              + longId
              + " has "
              + turnStarts.size()
              + " model turns in its history, expected "
              + (turns + 1));
    }
    double early = meanTurnBytes(events, turnStarts, config.earlyFrom(), config.earlyTo());
    double late = meanTurnBytes(events, turnStarts, config.lateFrom(), config.lateTo());
    report.put("historyBytesPerTurnEarly", early);
    report.put("historyBytesPerTurnLate", late);
    report.put("historyGrowthRatio", late / early);
    // Wall-clock time per turn at both ends: does a step get slower as the session grows?
    report.put("stepMsEarly", meanTurnMs(events, turnStarts, config.earlyFrom(), config.earlyTo()));
    report.put("stepMsLate", meanTurnMs(events, turnStarts, config.lateFrom(), config.lateTo()));
    report.put("historyTurns", turns);
    report.put("historyRuns", runs.size());
    report.put("historyEvents", events.size());
    long totalBytes = 0;
    for (HistoryEvent event : events) {
      totalBytes += event.getSerializedSize();
    }
    report.put("historyTotalBytes", (double) totalBytes);

    // What one step costs: the tasks a tool-calling turn runs and its history bytes by kind.
    int from = turnStarts.get(config.earlyFrom() - 1);
    int to = turnStarts.get(config.lateTo());
    StepAnatomy anatomy =
        StepAnatomy.of(events, from, to, config.lateTo() - config.earlyFrom() + 1);
    report.put("activitiesPerStep", anatomy.activities);
    report.put("localActivitiesPerStep", anatomy.localActivities);
    report.put("workflowTasksPerStep", anatomy.workflowTasks);
    report.put("historyEventsPerStep", anatomy.events);
    report.stepAnatomy(anatomy);
    report.activityTimings(StepMode.ACTIVITY, "one session alone", ActivityTimings.of(events));
    return result;
  }

  private static boolean isModelTurnScheduled(HistoryEvent event) {
    return event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        && MODEL_TURN.equals(
            event.getActivityTaskScheduledEventAttributes().getActivityType().getName());
  }

  /**
   * Mean bytes of turns {@code from..to} (1-based, inclusive): turn k is every event from its model
   * turn's ActivityTaskScheduled up to the next one's.
   */
  private static double meanTurnBytes(
      List<HistoryEvent> events, List<Integer> turnStarts, int from, int to) {
    long bytes = 0;
    for (int turn = from; turn <= to; turn++) {
      for (int i = turnStarts.get(turn - 1); i < turnStarts.get(turn); i++) {
        bytes += events.get(i).getSerializedSize();
      }
    }
    return bytes / (double) (to - from + 1);
  }

  /** Mean ms from one model turn's scheduling to the next, over turns {@code from..to}. */
  private static double meanTurnMs(
      List<HistoryEvent> events, List<Integer> turnStarts, int from, int to) {
    com.google.protobuf.Timestamp start = events.get(turnStarts.get(from - 1)).getEventTime();
    com.google.protobuf.Timestamp end = events.get(turnStarts.get(to)).getEventTime();
    return ((end.getSeconds() - start.getSeconds()) * 1e3
            + (end.getNanos() - start.getNanos()) / 1e6)
        / (to - from + 1);
  }

  /** The events of every run of {@code workflowId}, oldest run first (follows continue-as-new). */
  private List<List<HistoryEvent>> historyChain(String workflowId) {
    Deque<List<HistoryEvent>> runs = new ArrayDeque<>();
    String runId = null;
    while (true) {
      WorkflowExecutionHistory history =
          runId == null ? client.fetchHistory(workflowId) : client.fetchHistory(workflowId, runId);
      List<HistoryEvent> events = history.getEvents();
      runs.addFirst(events);
      String previous =
          events.isEmpty()
              ? ""
              : events
                  .get(0)
                  .getWorkflowExecutionStartedEventAttributes()
                  .getContinuedExecutionRunId();
      if (previous.isEmpty() || runs.size() > 10_000) {
        return new ArrayList<>(runs);
      }
      runId = previous;
    }
  }

  // ---- forks ----------------------------------------------------------------------------

  private void measureForks(BenchReport report, String longId, RunResult longRun) {
    String shortId = nextId("short");
    RunResult shortRun =
        agents(mainQueue)
            .send(shortId, "go", SendOptions.newBuilder().setAgent(BenchAgents.SHORT).build());
    require(
        RunStatus.FINISHED.equals(shortRun.status()) && shortRun.steps() == config.shortTurns() + 1,
        shortId,
        shortRun);
    fork(shortId, shortRun.checkpointStep(), BenchAgents.SHORT); // warm-up
    List<Double> longMs = new ArrayList<>();
    List<Double> shortMs = new ArrayList<>();
    for (int i = 0; i < config.forkRepeats(); i++) {
      longMs.add(fork(longId, longRun.checkpointStep(), BenchAgents.LONG));
      shortMs.add(fork(shortId, shortRun.checkpointStep(), BenchAgents.SHORT));
    }
    report.put("forkLatencyMsLong", median(longMs));
    report.put("forkLatencyMsShort", median(shortMs));
    report.put("forkLatencyRatio", median(longMs) / median(shortMs));
    report.put("forkSourceTurnsLong", config.historyTurns());
    report.put("forkSourceTurnsShort", config.shortTurns());
  }

  /**
   * ms to fork {@code source} at {@code step} with an appended input and get the fork's first step
   * (one model turn) back. The agent is named: a fork started without one resolves the worker's
   * default agent, not the source's.
   */
  private double fork(String source, int step, String agent) {
    String forkId = nextId("fork");
    AgentSessionWorkflow stub =
        client.newWorkflowStub(AgentSessionWorkflow.class, options(forkId, mainQueue));
    long t0 = System.nanoTime();
    WorkflowClient.start(
        stub::run,
        new SessionStart(
            forkId,
            agent,
            null,
            new ForkSource(source, step, new ForkPatch(null, null, null, "next"))));
    RunResult result = stub.send(new SendRequest(""));
    double ms = (System.nanoTime() - t0) / 1e6;
    require(
        result != null
            && RunStatus.FINISHED.equals(result.status())
            && ScriptedModelProvider.SCRIPT_ENDED.equals(result.text()),
        forkId,
        result);
    return ms;
  }

  // ---- cold replay ----------------------------------------------------------------------

  private void measureColdReplay(BenchReport report, String longId) {
    AgentSessionWorkflow session = client.newWorkflowStub(AgentSessionWorkflow.class, longId);
    int expectedMessages = 2 * config.historyTurns() + 2;
    List<Double> warm = new ArrayList<>();
    for (int i = 0; i < config.replayRepeats(); i++) {
      warm.add(timeStatus(session, longId, expectedMessages));
    }
    // The long session's worker caches one workflow: running another workflow on its queue evicts
    // the session, and the next query or update on it replays the whole history (a sticky-queue
    // cache miss, as after a worker restart or under cache pressure).
    List<Double> cold = new ArrayList<>();
    for (int i = 0; i < config.replayRepeats(); i++) {
      evictFromLongWorker();
      cold.add(timeStatus(session, longId, expectedMessages));
    }
    List<Double> coldSend = new ArrayList<>();
    for (int i = 0; i < config.replayRepeats(); i++) {
      evictFromLongWorker();
      long t0 = System.nanoTime();
      RunResult result = session.send(new SendRequest(""));
      coldSend.add((System.nanoTime() - t0) / 1e6);
      require(RunStatus.FINISHED.equals(result.status()), longId, result);
    }
    double per100 = config.historyTurns() / 100.0;
    report.put("coldReplayMs", median(cold));
    report.put("coldReplayMsPer100Turns", median(cold) / per100);
    report.put("coldReplaySendMsPer100Turns", median(coldSend) / per100);
    report.put("warmStatusQueryMs", median(warm));
  }

  /** Runs a one-activity workflow on the long worker, whose cache holds one workflow. */
  private void evictFromLongWorker() {
    String id = nextId("evict");
    client.newWorkflowStub(Baseline.Steps.class, options(id, longQueue)).run(0);
  }

  private static double timeStatus(AgentSessionWorkflow session, String id, int expectedMessages) {
    long t0 = System.nanoTime();
    SessionStatus status = session.status();
    double ms = (System.nanoTime() - t0) / 1e6;
    if (status == null || status.messageCount() != expectedMessages) {
      throw new IllegalStateException(
          "status of "
              + id
              + " answered "
              + (status == null ? "nothing" : status.messageCount() + " messages")
              + ", expected "
              + expectedMessages);
    }
    return ms;
  }

  // ---- memory ---------------------------------------------------------------------------

  private void measureMemory(BenchReport report) {
    long empty = settledHeapBytes();
    startFactory(waitQueue, -1, false);
    AgentClient waitClient = agents(waitQueue);
    long before = settledHeapBytes();
    int count = config.waitingSessions();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      futures.add(
          pool.submit(
              () -> {
                String id = nextId("wait");
                RunResult paused =
                    waitClient.send(
                        id, "go", SendOptions.newBuilder().setAgent(BenchAgents.APPROVAL).build());
                require(RunStatus.AWAITING_APPROVAL.equals(paused.status()), id, paused);
              }));
    }
    futures.forEach(Bench::await);
    long waiting = settledHeapBytes();
    WorkerFactory factory = factories.remove(waitQueue);
    factory.shutdown();
    factory.awaitTermination(30, TimeUnit.SECONDS);
    long afterWorker = settledHeapBytes();
    long idleWorker = before - empty;
    report.put("waitingSessions", count);
    report.put("bytesPerWaitingSession", (waiting - before) / (double) count);
    // What stopping the worker released, less what the idle worker itself held.
    report.put(
        "bytesPerWaitingSessionWorker", (waiting - afterWorker - idleWorker) / (double) count);
  }

  /** Heap in use after the collector settled (several full collections). */
  static long settledHeapBytes() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      sleep(150);
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  // ---- plumbing -------------------------------------------------------------------------

  private WorkerFactory startFactory(String queue, int cacheSize, boolean withBaseline) {
    return startFactory(queue, cacheSize, withBaseline, null);
  }

  private WorkerFactory startFactory(
      String queue, int cacheSize, boolean withBaseline, WorkerInterceptor interceptor) {
    AgentsPluginOptions.Builder options = AgentsPluginOptions.newBuilder().setStore(store);
    agents.forEach(options::addAgent);
    WorkerFactoryOptions.Builder factoryOptions =
        WorkerFactoryOptions.newBuilder().setPlugins(new AgentsPlugin(options.build()));
    if (cacheSize >= 0) {
      factoryOptions.setWorkflowCacheSize(cacheSize);
    }
    if (interceptor != null) {
      factoryOptions.setWorkerInterceptors(interceptor);
    }
    WorkerFactory factory = WorkerFactory.newInstance(client, factoryOptions.build());
    Worker worker = factory.newWorker(queue);
    if (withBaseline) {
      worker.registerWorkflowImplementationTypes(
          Baseline.StepsImpl.class, Baseline.LocalStepsImpl.class, Baseline.SignalProbeImpl.class);
      worker.registerActivitiesImplementations(new Baseline.ActivitiesImpl(clock));
    }
    factory.start();
    factories.put(queue, factory);
    return factory;
  }

  private AgentClient agents(String queue) {
    return AgentClient.newInstance(
        client, AgentClientOptions.newBuilder().setTaskQueue(queue).build());
  }

  private static WorkflowOptions options(String id, String queue) {
    return WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(queue).build();
  }

  private String nextId(String kind) {
    String id = prefix + "-" + kind + "-" + ids.incrementAndGet();
    started.add(id);
    return id;
  }

  private static void require(boolean ok, String id, RunResult result) {
    if (!ok) {
      throw new IllegalStateException(
          "bench session "
              + id
              + " did not run as scripted: "
              + (result == null
                  ? "no result"
                  : result.status()
                      + " after "
                      + result.steps()
                      + " steps, "
                      + result.toolCalls().size()
                      + " tool calls, text '"
                      + result.text()
                      + "'"
                      + (result.error() == null ? "" : ", error " + result.error())));
    }
  }

  private static void await(Future<?> future) {
    await(future, WAIT_SECONDS * 5, "a bench session");
  }

  /** Waits for {@code future}; its failure, or a wait past {@code seconds}, is thrown. */
  static void await(Future<?> future, long seconds, String what) {
    try {
      future.get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException runtime
          ? runtime
          : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(what + " took longer than " + seconds + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static long await(CompletableFuture<Long> future) {
    try {
      return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "the probed handler did not start within " + WAIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Comparator.naturalOrder());
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String formatList(List<Double> values) {
    List<String> out = new ArrayList<>();
    values.forEach(v -> out.add(BenchReport.format(v)));
    return String.join(" ", out);
  }

  /**
   * Stops the workers and releases everything. Against an existing Temporal or projection, the
   * bench's sessions are terminated and deleted, so nothing of it keeps waiting there.
   */
  @Override
  public void close() {
    for (WorkerFactory factory : factories.values()) {
      factory.shutdown();
    }
    for (WorkerFactory factory : factories.values()) {
      factory.awaitTermination(10, TimeUnit.SECONDS);
    }
    factories.clear();
    if (baselineWorker != null) {
      try {
        baselineWorker.kill();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<String> ids;
    synchronized (started) {
      ids = new ArrayList<>(started);
    }
    if (externalTemporal && client != null) {
      runAll(
          ids,
          id -> {
            try {
              client.newUntypedWorkflowStub(id).terminate("agents bench finished");
            } catch (RuntimeException ignored) {
              // finished already, or never started
            }
          });
    }
    if (externalProjection && store != null) {
      runAll(
          ids,
          id -> {
            try {
              store.delete(id, false);
            } catch (RuntimeException ignored) {
              // no such session
            }
          });
    }
    pool.shutdownNow();
    if (service != null) {
      service.shutdown();
      service.awaitTermination(5, TimeUnit.SECONDS);
    }
    if (store != null) {
      store.close();
    }
    if (server != null) {
      server.close();
    }
    if (tempDir != null) {
      try (Stream<Path> files = Files.walk(tempDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
      } catch (IOException ignored) {
        // a temporary directory; the OS cleans it eventually
      }
    }
  }

  private void runAll(List<String> ids, java.util.function.Consumer<String> action) {
    List<Future<?>> futures = new ArrayList<>();
    for (String id : ids) {
      futures.add(pool.submit(() -> action.accept(id)));
    }
    for (Future<?> future : futures) {
      try {
        future.get(60, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        // best effort
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
