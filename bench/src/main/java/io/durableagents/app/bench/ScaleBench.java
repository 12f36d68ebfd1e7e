package io.durableagents.app.bench;

import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * {@code agents bench --scale}: cost curves on the real server. It starts the Temporal CLI's dev
 * server (as {@code agents server} does) and a PostgreSQL for the projection, then for each worker
 * count runs that many plugin worker processes and as many plain baseline worker processes ({@link
 * BenchWorkerCommand}), and at each concurrency keeps that many sessions running (each client
 * thread starts its next session when one finishes), plugin and baseline in turn. Per point: steps
 * per second, the p50 and p99 of a step's latency (one model turn's scheduling to the next, from
 * the histories), and the median and slowest session. Then one long session's history growth and
 * the worker heap per waiting session, on the same server and database.
 */
final class ScaleBench implements AutoCloseable {
  private static final long ROUND_TIMEOUT_MINUTES = 60;
  private static final int HISTORY_READERS = 16;

  private final ScaleConfig config;
  private final PrintWriter progress;
  private final Path dir;
  private final String prefix = "scale-" + UUID.randomUUID().toString().substring(0, 8);
  private final AtomicInteger ids = new AtomicInteger();
  private final List<AgentsCommandProcess> pluginWorkers = new ArrayList<>();
  private final List<AgentsCommandProcess> baselineWorkers = new ArrayList<>();
  private final Map<String, Double> projectionLoad = new LinkedHashMap<>();
  private EmbeddedPostgres postgres;
  private TemporalDevServer server;
  private WorkflowServiceStubs service;
  private WorkflowClient client;
  private String projectionUrl;
  private boolean closed;

  private ScaleBench(ScaleConfig config, PrintWriter progress) throws IOException {
    this.config = config;
    this.progress = progress;
    this.dir = Files.createTempDirectory("agents-bench-scale");
  }

  /**
   * Runs the whole scale bench on servers it starts with {@code cli}; Ctrl-C stops them too (the
   * worker processes end with the bench's end of their input).
   */
  static ScaleReport run(ScaleConfig config, Path cli, PrintWriter progress) {
    try (ScaleBench bench = new ScaleBench(config, progress)) {
      Thread onInterrupt = new Thread(bench::close, "scale-bench-stop");
      Runtime.getRuntime().addShutdownHook(onInterrupt);
      try {
        bench.start(cli);
        return bench.measure();
      } finally {
        Runtime.getRuntime().removeShutdownHook(onInterrupt);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void start(Path cli) throws IOException {
    say("starting PostgreSQL and the Temporal dev server in " + dir);
    postgres =
        EmbeddedPostgres.builder()
            .setDataDirectory(dir.resolve("postgres"))
            .setCleanDataDirectory(true)
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log("postgres")))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log("postgres")))
            .start();
    projectionUrl = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres?user=postgres";
    server =
        TemporalDevServer.start(
            TemporalDevServer.Options.newBuilder(cli)
                .logFile(dir.resolve("temporal-server.log"))
                .build());
    service = AgentWorker.connect(server.address());
    client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().build());
  }

  private File log(String name) {
    return dir.resolve(name + ".log").toFile();
  }

  private ScaleReport measure() {
    List<ScalePoint> points = new ArrayList<>();
    for (int count : config.workers()) {
      String pluginQueue = prefix + "-plugin-" + count;
      String baselineQueue = prefix + "-baseline-" + count;
      startWorkers(count, pluginQueue, baselineQueue);
      try {
        int warm = Math.min(64, Collections.max(config.concurrency()));
        say(count + " worker(s) per side: warming up at " + warm + " sessions");
        for (boolean plugin : new boolean[] {true, false}) {
          round(plugin, Bench.StepMode.ACTIVITY, plugin ? pluginQueue : baselineQueue, count, warm);
        }
        int i = 0;
        for (int concurrency : config.concurrency()) {
          boolean pluginFirst = i++ % 2 == 0;
          for (boolean plugin : new boolean[] {pluginFirst, !pluginFirst}) {
            points.add(
                round(
                    plugin,
                    Bench.StepMode.ACTIVITY,
                    plugin ? pluginQueue : baselineQueue,
                    count,
                    concurrency));
          }
        }
        if (count == config.workers().get(0)) {
          int local = config.localConcurrency();
          for (boolean plugin : new boolean[] {true, false}) {
            round(plugin, Bench.StepMode.LOCAL, plugin ? pluginQueue : baselineQueue, count, local);
          }
          for (boolean plugin : new boolean[] {false, true}) {
            points.add(
                round(
                    plugin,
                    Bench.StepMode.LOCAL,
                    plugin ? pluginQueue : baselineQueue,
                    count,
                    local));
          }
        }
      } finally {
        stopWorkers();
      }
    }
    BenchReport growth;
    try (Bench bench =
        new Bench(config.growthAndMemory(), server.address(), "default", projectionUrl, progress)) {
      growth = bench.growthAndMemory();
    }
    return new ScaleReport(
        config, "Temporal CLI dev server, PostgreSQL projection", points, growth, projectionLoad);
  }

  private void startWorkers(int count, String pluginQueue, String baselineQueue) {
    for (int n = 1; n <= count; n++) {
      pluginWorkers.add(
          BenchWorkerCommand.launch(
              dir,
              "plugin-worker-" + count + "." + n,
              List.of(
                  "--temporal",
                  server.address(),
                  "--task-queue",
                  pluginQueue,
                  "--plugin",
                  "--projection",
                  projectionUrl,
                  "--steps",
                  String.valueOf(config.steps()))));
      baselineWorkers.add(
          BenchWorkerCommand.launch(
              dir,
              "baseline-worker-" + count + "." + n,
              List.of("--temporal", server.address(), "--task-queue", baselineQueue)));
    }
  }

  private void stopWorkers() {
    for (List<AgentsCommandProcess> workers : List.of(pluginWorkers, baselineWorkers)) {
      for (AgentsCommandProcess worker : workers) {
        try {
          worker.kill();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      workers.clear();
    }
  }

  /**
   * One point: {@code concurrency} client threads, each running sessions one after the other, until
   * {@code concurrency} sessions started and {@code minSeconds} passed; then their histories are
   * read. The steps per second count the last sessions' finish, the same for both sides.
   */
  private ScalePoint round(
      boolean plugin, Bench.StepMode mode, String queue, int workerCount, int concurrency) {
    AgentClient agents =
        AgentClient.newInstance(
            client, AgentClientOptions.newBuilder().setTaskQueue(queue).build());
    List<String> done = Collections.synchronizedList(new ArrayList<>());
    List<Double> sessionMs = Collections.synchronizedList(new ArrayList<>());
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(concurrency, daemon("scale-client"));
    List<AgentsCommandProcess> sideWorkers = plugin ? pluginWorkers : baselineWorkers;
    boolean measureProjection =
        plugin
            && mode == Bench.StepMode.ACTIVITY
            && workerCount == config.workers().get(0)
            && concurrency == Collections.max(config.concurrency());
    ProjectionCounters projectionBefore =
        measureProjection ? ProjectionCounters.read(projectionUrl) : null;
    CpuTimes cpuBefore = CpuTimes.now(server.pid(), sideWorkers);
    long t0 = System.nanoTime();
    long deadline = t0 + TimeUnit.SECONDS.toNanos(config.minSeconds());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int c = 0; c < concurrency; c++) {
        futures.add(
            pool.submit(
                () -> {
                  while (next.getAndIncrement() < concurrency || System.nanoTime() < deadline) {
                    String id = prefix + "-" + (plugin ? "p" : "b") + "-" + ids.incrementAndGet();
                    long start = System.nanoTime();
                    runSession(agents, plugin, mode, queue, id);
                    sessionMs.add((System.nanoTime() - start) / 1e6);
                    done.add(id);
                  }
                }));
      }
      futures.forEach(ScaleBench::await);
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    int sessions = done.size();
    double allSteps = sessions * (double) config.steps();
    CpuTimes cpu = CpuTimes.now(server.pid(), sideWorkers).since(cpuBefore, allSteps);
    if (measureProjection) {
      projectionLoad.putAll(
          ProjectionCounters.read(projectionUrl).perStep(projectionBefore, allSteps));
    }
    List<Double> stepMs =
        mode == Bench.StepMode.ACTIVITY
            ? stepLatencies(done)
            : sessionMs.stream().map(ms -> ms / config.steps()).toList();
    if (plugin) {
      closeAll(agents, done);
    }
    ScalePoint point =
        new ScalePoint(
            plugin ? "plugin" : "baseline",
            mode == Bench.StepMode.ACTIVITY ? "default" : "local",
            workerCount,
            concurrency,
            sessions,
            config.steps(),
            allSteps / seconds,
            percentile(stepMs, 50),
            percentile(stepMs, 99),
            percentile(sessionMs, 50),
            Collections.max(sessionMs),
            cpu);
    say(point.describe());
    return point;
  }

  private void runSession(
      AgentClient agents, boolean plugin, Bench.StepMode mode, String queue, String id) {
    int steps = config.steps();
    if (plugin) {
      String agent = mode == Bench.StepMode.LOCAL ? BenchAgents.STEP_N_LOCAL : BenchAgents.STEP_N;
      RunResult result = agents.send(id, "go", SendOptions.newBuilder().setAgent(agent).build());
      if (!RunStatus.FINISHED.equals(result.status()) || result.toolCalls().size() != steps) {
        throw new IllegalStateException(
            id + " did not run as scripted: " + result.status() + ", " + result.error());
      }
      return;
    }
    WorkflowOptions options =
        WorkflowOptions.newBuilder().setWorkflowId(id).setTaskQueue(queue).build();
    int ran =
        mode == Bench.StepMode.LOCAL
            ? client.newWorkflowStub(Baseline.LocalSteps.class, options).run(steps)
            : client.newWorkflowStub(Baseline.Steps.class, options).run(steps);
    if (ran != steps) {
      throw new IllegalStateException(id + " ran " + ran + " steps");
    }
  }

  /** From each session's history: the time from one model turn's scheduling to the next's. */
  private List<Double> stepLatencies(List<String> sessionIds) {
    List<Double> latencies = Collections.synchronizedList(new ArrayList<>());
    forEachParallel(
        sessionIds,
        id -> {
          HistoryEvent previous = null;
          for (HistoryEvent event : client.fetchHistory(id).getEvents()) {
            if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                && StepProfile.MODEL_TURN.equals(
                    StepProfile.role(
                        event
                            .getActivityTaskScheduledEventAttributes()
                            .getActivityType()
                            .getName()))) {
              if (previous != null) {
                latencies.add(DispatchTimes.ms(previous.getEventTime(), event.getEventTime()));
              }
              previous = event;
            }
          }
        });
    return latencies;
  }

  /** Closes the round's sessions, so the next round's workers start with empty caches. */
  private void closeAll(AgentClient agents, List<String> sessionIds) {
    forEachParallel(sessionIds, agents::close);
  }

  private void forEachParallel(List<String> items, Consumer<String> action) {
    ExecutorService pool = Executors.newFixedThreadPool(HISTORY_READERS, daemon("scale-reader"));
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (String item : items) {
        futures.add(pool.submit(() -> action.accept(item)));
      }
      futures.forEach(ScaleBench::await);
    } finally {
      pool.shutdownNow();
    }
  }

  /** The {@code p}th percentile (nearest rank) of {@code values}. */
  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  private static void await(Future<?> future) {
    Bench.await(future, TimeUnit.MINUTES.toSeconds(ROUND_TIMEOUT_MINUTES), "a scale round");
  }

  private void say(String line) {
    progress.println("bench: " + line);
    progress.flush();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stopWorkers();
    if (service != null) {
      service.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
    if (postgres != null) {
      try {
        postgres.close();
      } catch (IOException e) {
        progress.println("bench: PostgreSQL did not stop cleanly: " + e.getMessage());
      }
    }
  }
}
