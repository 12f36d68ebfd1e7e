package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrency keys under worker crashes, on the real Temporal server: 20 sessions on 5 keys each
 * send two messages while a killer SIGKILLs one of the two worker JVMs every few seconds and starts
 * a new one. Every run's tool appends a fsynced ledger line when it starts and when it ends; after
 * the storm, the ledger must show that the runs of one key never worked at the same time (a run's
 * span reaches from its first line to its last, the lines of attempts on killed workers included),
 * every run finished, and every key's lease workflow completed: no lease was leaked. While the runs
 * go on, a run waiting for its key shows {@code queued} with the key and its place, and at the end
 * the sessions of a key are found by their search attribute.
 *
 * <p>On failure the temporary directory is kept: worker and server logs and the ledger.
 */
class ConcurrencyKeyCrashIT {
  private static final int SESSIONS = 20;
  private static final int KEYS = 5;
  private static final int RUNS_PER_SESSION = 2;
  private static final int WORKERS = 2;
  private static final int MIN_KILLS = 3;
  private static final int MAX_KILLS = 10;
  private static final Duration KILL_EVERY = Duration.ofSeconds(4);
  private static final Duration DEADLINE = Duration.ofMinutes(4);
  private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  Path dir;

  private final List<ChildJvm> workers = new CopyOnWriteArrayList<>();
  private final List<Long> killTimes = new CopyOnWriteArrayList<>();
  private final AtomicBoolean stopKilling = new AtomicBoolean();
  private TemporalDevServer server;
  private WorkflowServiceStubs service;
  private ExecutorService drivers;
  private int started;

  @AfterEach
  void stopEverything() throws InterruptedException {
    stopKilling.set(true);
    if (drivers != null) {
      drivers.shutdownNow();
    }
    for (ChildJvm worker : workers) {
      worker.process().destroyForcibly();
      worker.process().waitFor(10, TimeUnit.SECONDS);
    }
    if (service != null) {
      service.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void runsSharingAKey_neverOverlap_andAllFinish_whileWorkersAreSigkilled() throws Exception {
    long begin = System.nanoTime();
    Path database = dir.resolve("projection.db");
    Path ledger = dir.resolve("tool-ledger.jsonl");
    server = RealTemporal.start(dir);
    List<String> workerArgs =
        List.of(String.valueOf(server.port()), database.toString(), ledger.toString());
    for (int i = 0; i < WORKERS; i++) {
      startWorker(workerArgs);
    }
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    WorkflowClient temporal = WorkflowClient.newInstance(service);
    AgentClient agents =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder()
                .setTaskQueue(ConcurrencyKeyTestWorker.TASK_QUEUE)
                .build());

    Thread killer = new Thread(() -> killEvery(workerArgs), "killer");
    killer.setDaemon(true);
    killer.start();

    Map<String, String> keyOf = new TreeMap<>();
    drivers = Executors.newFixedThreadPool(SESSIONS);
    Map<String, Future<List<RunResult>>> runs = new TreeMap<>();
    for (int i = 0; i < SESSIONS; i++) {
      String session = String.format("keyed-%02d", i);
      String key = "customer:" + (i % KEYS);
      keyOf.put(session, key);
      SendOptions options = SendOptions.newBuilder().setConcurrencyKey(key).build();
      runs.put(
          session,
          drivers.submit(
              () -> {
                List<RunResult> results = new ArrayList<>();
                for (int run = 1; run <= RUNS_PER_SESSION; run++) {
                  results.add(agents.send(session, "message " + run, options));
                }
                return results;
              }));
    }
    SessionStatus queued =
        await("a run queued behind another of its key")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> firstQueued(agents, keyOf.keySet()), Objects::nonNull);
    assertThat(queued.concurrencyKey()).isEqualTo(keyOf.get(queued.sessionId()));
    assertThat(queued.queuePlace()).as("place of %s", queued.sessionId()).isPositive();

    Map<String, List<RunResult>> finals = new TreeMap<>();
    for (Map.Entry<String, Future<List<RunResult>>> run : runs.entrySet()) {
      long left = DEADLINE.toNanos() - (System.nanoTime() - begin);
      finals.put(run.getKey(), run.getValue().get(Math.max(left, 1), TimeUnit.NANOSECONDS));
    }
    stopKilling.set(true);
    killer.join(TimeUnit.SECONDS.toMillis(90));
    // Before the workers stop: the last release reaches the lease after its run's result reached
    // the client, and a lease whose worker was killed waits for the next one. Completed within a
    // minute: never leaked.
    for (String key : new java.util.TreeSet<>(keyOf.values())) {
      await("the lease of " + key + ", once its runs settled")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  temporal
                      .newUntypedWorkflowStub(ConcurrencyKeyWorkflow.workflowId(key))
                      .describe()
                      .getStatus(),
              status -> status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    }
    for (ChildJvm worker : workers) {
      if (worker.process().isAlive()) {
        worker.kill();
      }
    }

    for (Map.Entry<String, List<RunResult>> session : finals.entrySet()) {
      assertThat(session.getValue())
          .as("the runs of %s", session.getKey())
          .hasSize(RUNS_PER_SESSION)
          .allSatisfy(result -> assertThat(result.status()).isEqualTo(RunStatus.FINISHED));
    }
    Map<String, List<Span>> spansByKey = spansByKey(ledger, keyOf);
    List<String> overlaps = new ArrayList<>();
    int queuedBehindAnother = 0;
    for (Map.Entry<String, List<Span>> key : spansByKey.entrySet()) {
      List<Span> spans = key.getValue();
      assertThat(spans)
          .as("runs of %s in the ledger", key.getKey())
          .hasSize(SESSIONS / KEYS * RUNS_PER_SESSION);
      // Sorted by start: each span must start after every earlier one ended.
      Span latest = spans.get(0);
      for (Span span : spans.subList(1, spans.size())) {
        if (span.start() < latest.end()) {
          overlaps.add(key.getKey() + ": " + latest + " and " + span);
        }
        if (span.start() - latest.end() < Duration.ofSeconds(2).toMillis()) {
          queuedBehindAnother++;
        }
        if (span.end() > latest.end()) {
          latest = span;
        }
      }
      for (Span span : spans) {
        assertThat(span.ended()).as("%s ended its tool call", span).isTrue();
      }
    }
    assertThat(overlaps).as("runs of one key that worked at the same time").isEmpty();
    // Visibility is eventually consistent, and lags on a busy machine.
    await("the sessions of customer:0 are found by their key")
        .atMost(Duration.ofMinutes(5))
        .until(
            () ->
                temporal
                    .listExecutions(
                        "AgentConcurrencyKey=\"customer:0\" AND WorkflowType=\"AgentSession\"")
                    .count(),
            count -> count == SESSIONS / KEYS);
    assertThat(killTimes.size())
        .as("workers killed during the runs")
        .isGreaterThanOrEqualTo(MIN_KILLS);
    System.out.printf(
        "ConcurrencyKeyCrashIT summary: sessions=%d keys=%d runs=%d kills=%d overlaps=%d"
            + " runsStartedWithin2sOfTheirPredecessor=%d runtime=%ds%n",
        SESSIONS,
        KEYS,
        SESSIONS * RUNS_PER_SESSION,
        killTimes.size(),
        overlaps.size(),
        queuedBehindAnother,
        Duration.ofNanos(System.nanoTime() - begin).toSeconds());
  }

  /** The status of a session whose run waits for its key, or null while none does. */
  private static SessionStatus firstQueued(AgentClient agents, Iterable<String> sessions) {
    for (String session : sessions) {
      try {
        SessionStatus status = agents.status(session).orElse(null);
        if (status != null && status.status() == RunStatus.QUEUED) {
          return status;
        }
      } catch (RuntimeException e) {
        // a session recovering from a killed worker: ask the next one
      }
    }
    return null;
  }

  /** When one run worked: its first and last ledger line, whether it has an end line. */
  record Span(String sessionId, int run, long start, long end, boolean ended) {
    @Override
    public String toString() {
      return sessionId + " run " + run + " [" + start + ", " + end + "]";
    }
  }

  private static Map<String, List<Span>> spansByKey(Path ledger, Map<String, String> keyOf)
      throws Exception {
    Map<String, List<JsonNode>> linesByRun = new TreeMap<>();
    for (String text : Files.readAllLines(ledger, StandardCharsets.UTF_8)) {
      if (text.isBlank()) {
        continue;
      }
      JsonNode line = JSON.readTree(text);
      linesByRun
          .computeIfAbsent(
              line.get("sessionId").asText() + "#" + line.get("run").asInt(),
              k -> new ArrayList<>())
          .add(line);
    }
    Map<String, List<Span>> byKey = new TreeMap<>();
    for (List<JsonNode> lines : linesByRun.values()) {
      JsonNode first = lines.get(0);
      String session = first.get("sessionId").asText();
      long start = lines.stream().mapToLong(l -> l.get("at").asLong()).min().orElseThrow();
      long end = lines.stream().mapToLong(l -> l.get("at").asLong()).max().orElseThrow();
      boolean ended = lines.stream().anyMatch(l -> "end".equals(l.get("phase").asText()));
      byKey
          .computeIfAbsent(keyOf.get(session), k -> new ArrayList<>())
          .add(new Span(session, first.get("run").asInt(), start, end, ended));
    }
    byKey.values().forEach(spans -> spans.sort(Comparator.comparingLong(Span::start)));
    return byKey;
  }

  private void startWorker(List<String> args) throws Exception {
    ChildJvm worker =
        ChildJvm.start(
            "worker-" + ++started,
            dir,
            System.getProperty("java.class.path"),
            ConcurrencyKeyTestWorker.class,
            args);
    workers.add(worker);
    worker.awaitReady(CrashTestWorker.READY, READY_TIMEOUT);
  }

  /** Every {@link #KILL_EVERY}, SIGKILLs one live worker and starts another in its place. */
  private void killEvery(List<String> args) {
    try {
      while (!stopKilling.get() && killTimes.size() < MAX_KILLS) {
        Thread.sleep(KILL_EVERY.toMillis());
        if (stopKilling.get()) {
          return;
        }
        List<ChildJvm> live = workers.stream().filter(w -> w.process().isAlive()).toList();
        ChildJvm victim = live.get(ThreadLocalRandom.current().nextInt(live.size()));
        victim.kill();
        killTimes.add(System.currentTimeMillis());
        startWorker(args);
      }
    } catch (Exception e) {
      if (!stopKilling.get()) {
        throw new IllegalStateException("the killer failed", e);
      }
    }
  }
}
