package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRow;
import io.durableagents.session.RunStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One chaos run, the same for {@code ChaosIT} (the CI form) and {@code agents chaos} (longer, by
 * hand): starts the {@link Cluster}, lets {@link ChaosConfig#sessions} sessions arrive while the
 * {@link Storm} breaks things, waits until every session settled (or the deadline: {@link
 * ChaosConfig#settle} after the storm's end or after the last session that settled, whichever is
 * later, and never more than six times that after the storm), stops the workers, and checks every
 * guarantee ({@link Verifier}, {@link ProjectionCheck}) and the recovery times ({@link Recovery}).
 *
 * <pre>{@code
 * ChaosReport report = new ChaosRun(ChaosConfig.ci(seed), dir, progress).run();
 * report.print(out, 50);
 * }</pre>
 */
public final class ChaosRun {
  /** After the storm, the sessions have at most this many times the settle time to settle. */
  private static final int SETTLE_CAP = 6;

  /** How long after the sessions settled their projection rows may take to say so. */
  private static final Duration PROJECTION_CATCH_UP = Duration.ofSeconds(60);

  /** A worker kill's recovery is its own when no large fault strikes this long after it. */
  static final Duration QUIET_AFTER_KILL = Duration.ofSeconds(30);

  private final ChaosConfig config;
  private final Path dir;
  private final PrintWriter progress;

  /**
   * A run of {@code config} that keeps its files (logs, ledgers, databases) in {@code dir} and
   * reports progress to {@code progress}.
   */
  public ChaosRun(ChaosConfig config, Path dir, PrintWriter progress) {
    this.config = config;
    this.dir = dir;
    this.progress = progress;
  }

  /**
   * Runs the storm and the checks. A broken guarantee is a violation in the report; only a run that
   * cannot go on (e.g. the cluster does not start) throws.
   */
  public ChaosReport run() throws IOException, InterruptedException {
    long started = System.nanoTime();
    ChaosReport report = new ChaosReport();
    report.config = config;
    report.dir = dir.toString();
    Timeline timeline = new Timeline();
    Random random = new Random(config.seed());
    List<SessionRecord> sessions = plan(random);
    report.sessions = sessions.size();
    report.gated = (int) sessions.stream().filter(SessionRecord::gated).count();
    report.forkedPlanned = (int) sessions.stream().filter(s -> s.forkPlanned).count();
    try (Cluster cluster = new Cluster(dir, timeline, progress)) {
      cluster.start();
      WorkflowServiceStubs service =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(cluster.address()).build());
      try (ProjectionReader reader = ProjectionReader.open(cluster.liveUrl())) {
        WorkflowClient temporal = WorkflowClient.newInstance(service);
        AgentClient agents =
            AgentClient.newInstance(
                temporal,
                AgentClientOptions.newBuilder()
                    .setTaskQueue(Cluster.TASK_QUEUE)
                    .setProjection(reader)
                    .build());
        AtomicLong deadline = new AtomicLong(Long.MAX_VALUE);
        Driver driver = new Driver(cluster, agents, service, deadline::get);
        String consoleIdentity = driver.consoleIdentity();
        Storm storm = new Storm(config, cluster, random);
        storm.start();
        deadline.set(storm.endMillis() + config.settle().toMillis());
        say(
            "storm of %d s begins: %d sessions arrive over %d s",
            config.storm().toSeconds(), sessions.size(), config.arrivals().toSeconds());
        drive(driver, sessions, deadline.get());
        storm.awaitEnd();
        if (storm.failure() != null) {
          report.violations.add(
              "a fault could not be done, or its part did not come back: "
                  + Driver.describe(storm.failure()));
        }
        say(
            "storm over; waiting for the sessions to settle (until %d s pass without one settling,"
                + " %d s at most)",
            config.settle().toSeconds(), config.settle().multipliedBy(SETTLE_CAP).toSeconds());
        awaitSettling(deadline, storm.endMillis(), sessions.size());
        long settledAt = System.currentTimeMillis();
        List<SessionRecord> all = withForks(sessions);
        int unsettled =
            (int) all.stream().filter(s -> s.result == null || s.failure != null).count();
        say(
            "%d of %d sessions settled, %.0f s after the storm",
            all.size() - unsettled, all.size(), (settledAt - storm.endMillis()) / 1e3);
        awaitProjection(reader, all);
        cluster.stopWorkers();

        Map<String, List<HistoryEvent>> histories = new HashMap<>();
        for (SessionRecord session : all) {
          if (session.result != null && session.failure == null) {
            histories.put(session.id, temporal.fetchHistory(session.id).getEvents());
          } else {
            saveHistory(temporal, session.id);
          }
        }
        say("%d histories fetched; checking the guarantees", histories.size());
        List<JsonNode> toolLines = Ledger.read(cluster.ledgerDir().resolve(Ledger.TOOLS));
        List<JsonNode> modelLines = Ledger.read(cluster.ledgerDir().resolve(Ledger.MODEL));
        Verifier verifier = new Verifier(timeline, reader, consoleIdentity);
        verifier.verify(all, histories, toolLines, modelLines);
        report.violations.addAll(verifier.violations);

        List<String> settledIds = new ArrayList<>(histories.keySet());
        settledIds.sort(String::compareTo);
        Set<String> forks = new HashSet<>();
        all.stream().filter(SessionRecord::isFork).forEach(fork -> forks.add(fork.id));
        ProjectionCheck projection = new ProjectionCheck(temporal);
        projection.check(
            settledIds, forks, cluster.address(), cluster.liveUrl(), cluster.rebuiltUrl(), dir);
        report.violations.addAll(projection.violations);
        say("projection rebuilt and compared");

        List<JsonNode> lines = new ArrayList<>(toolLines);
        lines.addAll(modelLines);
        Recovery recovery = new Recovery(lines);
        report.workerRecovery =
            recovery.afterWorkerKills(timeline.faults(Timeline.Kind.WORKER_KILL));
        report.quietWorkerRecovery =
            recovery.afterWorkerKills(quiet(timeline, timeline.faults(Timeline.Kind.WORKER_KILL)));
        report.serverRecovery =
            recovery.afterServerKills(timeline.faults(Timeline.Kind.SERVER_KILL));
        if (report.workerRecovery.notRecovered() > 0) {
          report.violations.add(
              report.workerRecovery.notRecovered()
                  + " sessions held by a killed worker never started a step again");
        }

        report.forks = (int) all.stream().filter(SessionRecord::isFork).count();
        report.settled = histories.size();
        report.workerKills = timeline.faults(Timeline.Kind.WORKER_KILL).size();
        report.failedStarts = timeline.failedStarts();
        for (Timeline.Fault fault : timeline.faults(Timeline.Kind.POSTGRES_OUTAGE)) {
          report.outageMillis.add(fault.end() - fault.start());
        }
        for (Timeline.Fault fault : timeline.faults(Timeline.Kind.SERVER_KILL)) {
          report.serverDowntimeMillis.add(fault.end() - fault.start());
        }
        report.consoleRestarts = timeline.faults(Timeline.Kind.CONSOLE_RESTART).size();
        report.toolCalls = verifier.toolCalls;
        report.effects = verifier.effects;
        report.duplicateEffects = verifier.duplicateEffects;
        report.generations = verifier.generations;
        report.duplicateGenerations = verifier.duplicateGenerations;
        report.resentModelTurns = verifier.resentModelTurns;
        report.approvals = verifier.approvals;
        report.alreadyDecidedAnswers = verifier.alreadyDecidedAnswers;
        report.restDecisions = driver.restDecisions();
        report.cliDecisions = driver.cliDecisions();
        report.rebuilt = projection.rebuilt;
        report.identical = projection.identical;
        report.rows = projection.rows;
        report.forkPrefixRows = projection.forkPrefixRows;
        report.historyCosts = verifier.historyCosts;
        report.retries = driver.retries();
        report.retrySamples = driver.retrySamples();
      } finally {
        service.shutdownNow();
      }
    }
    report.runtime = Duration.ofNanos(System.nanoTime() - started);
    return report;
  }

  /**
   * The sessions: every {@value ChaosConfig#GATED_EVERY}rd waits for an approval, decided through
   * the CLI for every {@value ChaosConfig#CLI_EVERY}th of those and the REST API for the others;
   * every {@value ChaosConfig#FORKED_EVERY}th is forked; each arrives at a random instant of the
   * arrival window.
   */
  List<SessionRecord> plan(Random random) {
    List<SessionRecord> plan = new ArrayList<>();
    for (int i = 1; i <= config.sessions(); i++) {
      boolean gated = i % ChaosConfig.GATED_EVERY == 0;
      SessionRecord.Channel channel =
          !gated
              ? SessionRecord.Channel.REST
              : (i / ChaosConfig.GATED_EVERY) % ChaosConfig.CLI_EVERY == 0
                  ? SessionRecord.Channel.CLI
                  : SessionRecord.Channel.REST;
      plan.add(
          new SessionRecord(
              String.format("chaos-%04d", i),
              gated ? ChaosAgents.GATED : ChaosAgents.FREE,
              channel,
              i % ChaosConfig.FORKED_EVERY == ChaosConfig.FORKED_EVERY / 2,
              (long) (random.nextDouble() * config.arrivals().toMillis())));
    }
    return plan;
  }

  private ExecutorService drivers;

  /** The drivers that ended, and of those the ones whose session settled. */
  private final AtomicInteger driversEnded = new AtomicInteger();

  private final AtomicInteger sessionsSettled = new AtomicInteger();

  /** Starts each session's driver at its arrival instant. */
  private void drive(Driver driver, List<SessionRecord> sessions, long deadlineMillis) {
    drivers = Executors.newCachedThreadPool(Cluster.daemon("driver"));
    ScheduledExecutorService arrivals =
        Executors.newSingleThreadScheduledExecutor(Cluster.daemon("arrivals"));
    for (SessionRecord session : sessions) {
      @SuppressWarnings("unused") // Each driver records its own outcome in the session.
      var unused =
          arrivals.schedule(
              () ->
                  drivers.execute(
                      () -> {
                        try {
                          driver.drive(session);
                          if (session.result != null && session.failure == null) {
                            sessionsSettled.incrementAndGet();
                          }
                        } finally {
                          driversEnded.incrementAndGet();
                        }
                      }),
              session.arrivalMillis,
              TimeUnit.MILLISECONDS);
    }
    arrivals.shutdown();
    say(
        "drivers scheduled; deadline %s",
        Duration.ofMillis(deadlineMillis - System.currentTimeMillis()));
  }

  /**
   * Waits for every driver, moving the drivers' {@code deadline} on while sessions still settle: a
   * busy machine makes them slow (a restarted dev server catches up for minutes, see
   * docs/operations.md), and only a session that stays unsettled while none settles, or past {@link
   * #SETTLE_CAP} times the settle time after the storm, is named as one that did not.
   */
  private void awaitSettling(AtomicLong deadline, long stormEndMillis, int sessionCount)
      throws InterruptedException {
    // Arrivals are all scheduled before the storm ends; then no new driver starts.
    drivers.shutdown();
    long settle = config.settle().toMillis();
    long cap = stormEndMillis + settle * SETTLE_CAP;
    int settled = sessionsSettled.get();
    while (!drivers.awaitTermination(2, TimeUnit.SECONDS)) {
      long now = System.currentTimeMillis();
      int settledNow = sessionsSettled.get();
      if (settledNow > settled && now < deadline.get()) {
        settled = settledNow;
        deadline.set(Math.min(Math.max(deadline.get(), now + settle), cap));
      }
      if (now > deadline.get() + Duration.ofMinutes(2).toMillis()) {
        // Every driver ends at the deadline; one that did not is stuck in a call.
        drivers.shutdownNow();
        break;
      }
    }
    if (driversEnded.get() < sessionCount) {
      say("%d of %d drivers ended", driversEnded.get(), sessionCount);
    }
  }

  /**
   * The worker kills with no server kill or PostgreSQL outage from the kill to {@link
   * #QUIET_AFTER_KILL} after it: their recovery is the worker's alone.
   */
  private static List<Timeline.Fault> quiet(Timeline timeline, List<Timeline.Fault> kills) {
    List<Timeline.Fault> large = new ArrayList<>(timeline.faults(Timeline.Kind.SERVER_KILL));
    large.addAll(timeline.faults(Timeline.Kind.POSTGRES_OUTAGE));
    List<Timeline.Fault> quiet = new ArrayList<>();
    for (Timeline.Fault kill : kills) {
      long until = kill.start() + QUIET_AFTER_KILL.toMillis();
      if (large.stream().noneMatch(fault -> fault.overlaps(kill.start(), until))) {
        quiet.add(kill);
      }
    }
    return quiet;
  }

  private static List<SessionRecord> withForks(List<SessionRecord> sessions) {
    List<SessionRecord> all = new ArrayList<>(sessions);
    for (SessionRecord session : sessions) {
      if (session.fork != null) {
        all.add(session.fork);
      }
    }
    return all;
  }

  /**
   * Waits until the projection row of every settled session says finished: a run answers before its
   * last checkpoint save may have landed. What is still behind after {@link #PROJECTION_CATCH_UP}
   * is left for the verifier to report.
   */
  private void awaitProjection(ProjectionReader reader, List<SessionRecord> sessions)
      throws InterruptedException {
    long deadline = System.nanoTime() + PROJECTION_CATCH_UP.toNanos();
    for (SessionRecord session : sessions) {
      if (session.result == null || !RunStatus.FINISHED.equals(session.result.status())) {
        continue;
      }
      while (System.nanoTime() < deadline) {
        Optional<SessionRow> row;
        try {
          row = reader.session(session.id);
        } catch (RuntimeException e) {
          row = Optional.empty();
        }
        if (row.isPresent() && RunStatus.FINISHED.equals(row.get().status())) {
          break;
        }
        Thread.sleep(200);
      }
    }
  }

  /** The history of a session that did not settle, kept next to the logs as evidence. */
  private void saveHistory(WorkflowClient temporal, String session) {
    try {
      Files.writeString(
          dir.resolve("history-" + session + ".json"), temporal.fetchHistory(session).toJson(true));
    } catch (IOException | RuntimeException e) {
      progress.println("chaos: cannot save the history of " + session + ": " + e);
    }
  }

  @com.google.errorprone.annotations.FormatMethod
  private void say(String format, Object... args) {
    progress.println("chaos: " + String.format(format, args));
    progress.flush();
  }
}
