package io.durableagents.app.chaos;

import com.google.errorprone.annotations.FormatMethod;
import io.durableagents.app.TemporalCli;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.bench.AgentsCommandProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The parts a chaos run breaks: PostgreSQL (the projection), the Temporal CLI's dev server with its
 * state in a file ({@code --db-filename}), {@value ChaosConfig#WORKERS} {@code agents worker}
 * processes serving the chaos agents with the ledger tools and model, and {@code agents console}.
 * Each fault is done here and written to the {@link Timeline}; a worker or the console that cannot
 * start (because what it needs is down) is started again until it is ready, each failed start
 * counted.
 */
final class Cluster implements AutoCloseable {
  static final String TASK_QUEUE = "chaos";
  static final String WORKER_READY = "worker polling task queue";
  static final String CONSOLE_READY = "console at ";

  /** A start that takes longer is given up, counted and tried again. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /** Restarts that fail for this long end the run: the part cannot come back. */
  private static final Duration GIVE_UP = Duration.ofMinutes(5);

  private final Path dir;
  private final Path logs;
  private final Path ledgerDir;
  private final Timeline timeline;
  private final PrintWriter progress;
  private final ExecutorService restarts = Executors.newCachedThreadPool(daemon("restart"));
  private final Slot[] slots = new Slot[ChaosConfig.WORKERS];
  private final List<Future<?>> pendingRestarts = new ArrayList<>();

  private ChaosPostgres postgres;
  private String liveUrl;
  private String rebuiltUrl;
  private Path agentsFile;
  private Path temporalCli;
  private int temporalPort;
  private volatile TemporalDevServer server;
  private int consolePort;
  private volatile AgentsCommandProcess console;
  private int consoleStarts;
  private volatile boolean closing;

  /** One worker position: the process serving in it, replaced after each kill. */
  private static final class Slot {
    final int number;
    volatile AgentsCommandProcess current;
    int starts;

    Slot(int number) {
      this.number = number;
    }
  }

  Cluster(Path dir, Timeline timeline, PrintWriter progress) {
    this.dir = dir;
    this.logs = dir.resolve("logs");
    this.ledgerDir = dir.resolve("ledger");
    this.timeline = timeline;
    this.progress = progress;
  }

  /** Starts every part and returns once the workers poll and the console serves. */
  void start() throws IOException, InterruptedException {
    Files.createDirectories(logs);
    Files.createDirectories(ledgerDir);
    agentsFile = ChaosAgents.write(dir);
    postgres = ChaosPostgres.start(dir.resolve("pgdata"), logs.resolve("postgres.log"));
    liveUrl = postgres.createDatabase("live");
    rebuiltUrl = postgres.createDatabase("rebuilt");
    // The chaos suite runs the real dev server: installed on first use, as the other tests do.
    temporalCli =
        TemporalCli.locate(null)
            .orElseGet(() -> TemporalCli.install(logs.resolve("install-temporal-cli.log")));
    temporalPort = freePort();
    server = startServer();
    say("temporal dev server on %s (state in %s)", address(), temporalDb().getFileName());
    consolePort = freePort();
    List<CompletableFuture<Void>> starts = new ArrayList<>();
    for (int i = 0; i < slots.length; i++) {
      Slot slot = new Slot(i + 1);
      slots[i] = slot;
      starts.add(CompletableFuture.runAsync(() -> slot.current = startWorker(slot), restarts));
    }
    starts.add(CompletableFuture.runAsync(() -> console = startConsole(), restarts));
    try {
      CompletableFuture.allOf(starts.toArray(CompletableFuture[]::new)).get();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the cluster did not start: " + e.getCause(), e.getCause());
    }
    say("%d workers and the console at %s ready", slots.length, consoleUrl());
  }

  String address() {
    return "127.0.0.1:" + temporalPort;
  }

  String liveUrl() {
    return liveUrl;
  }

  String rebuiltUrl() {
    return rebuiltUrl;
  }

  String consoleUrl() {
    return "http://127.0.0.1:" + consolePort;
  }

  Path ledgerDir() {
    return ledgerDir;
  }

  Path dir() {
    return dir;
  }

  int workerSlots() {
    return slots.length;
  }

  /** True when the worker in {@code slot} (0-based) polls and is not being replaced. */
  boolean workerReady(int slot) {
    return slots[slot].current != null;
  }

  // ---- faults ---------------------------------------------------------------------------------

  /**
   * {@code kill -9} of the worker in {@code slot} (0-based), then a replacement started in the
   * background; false when the slot has no ready worker.
   */
  boolean killWorker(int slot) throws InterruptedException {
    Slot s = slots[slot];
    AgentsCommandProcess victim;
    synchronized (s) {
      victim = s.current;
      if (victim == null || closing) {
        return false;
      }
      s.current = null;
    }
    long killedAt = System.currentTimeMillis();
    timeline.workerKilled(victim.pid());
    victim.kill();
    synchronized (pendingRestarts) {
      pendingRestarts.add(
          restarts.submit(
              () -> {
                AgentsCommandProcess replacement = startWorker(s);
                s.current = replacement;
                timeline.add(
                    new Timeline.Fault(
                        Timeline.Kind.WORKER_KILL,
                        killedAt,
                        System.currentTimeMillis(),
                        victim.pid()));
                return null;
              }));
    }
    return true;
  }

  /** {@code kill -9} of the Temporal server, then a start on the same port and file. */
  void killServer() throws InterruptedException {
    TemporalDevServer victim = server;
    long killedAt = System.currentTimeMillis();
    ProcessHandle handle = ProcessHandle.of(victim.pid()).orElse(null);
    if (handle != null) {
      handle.descendants().forEach(ProcessHandle::destroyForcibly);
      handle.destroyForcibly();
      try {
        handle.onExit().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("the Temporal server survived SIGKILL", e);
      }
    }
    say("killed the Temporal server (pid %d)", victim.pid());
    long deadline = System.nanoTime() + GIVE_UP.toNanos();
    while (true) {
      try {
        server = startServer();
        break;
      } catch (RuntimeException e) {
        timeline.failedStart("temporal server", firstLine(e.getMessage()));
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the Temporal server does not start again", e);
        }
        Thread.sleep(1000);
      }
    }
    long back = System.currentTimeMillis();
    timeline.add(new Timeline.Fault(Timeline.Kind.SERVER_KILL, killedAt, back, victim.pid()));
    say("Temporal server back after %.1f s (pid %d)", (back - killedAt) / 1e3, server.pid());
  }

  /** PostgreSQL stopped for {@code outage}, then started on the same data directory and port. */
  void postgresOutage(Duration outage) throws InterruptedException {
    long stoppedAt = System.currentTimeMillis();
    postgres.stop();
    say("PostgreSQL stopped for %d s", outage.toSeconds());
    long left = stoppedAt + outage.toMillis() - System.currentTimeMillis();
    if (left > 0) {
      Thread.sleep(left);
    }
    postgres.startServer();
    long back = System.currentTimeMillis();
    timeline.add(new Timeline.Fault(Timeline.Kind.POSTGRES_OUTAGE, stoppedAt, back, 0));
    say("PostgreSQL back after %.1f s", (back - stoppedAt) / 1e3);
  }

  /** {@code kill -9} of the console, then a start on the same port. */
  void restartConsole() throws InterruptedException {
    AgentsCommandProcess victim = console;
    long killedAt = System.currentTimeMillis();
    victim.kill();
    console = startConsole();
    long back = System.currentTimeMillis();
    timeline.add(new Timeline.Fault(Timeline.Kind.CONSOLE_RESTART, killedAt, back, victim.pid()));
    say("console restarted in %.1f s", (back - killedAt) / 1e3);
  }

  /** Waits until every worker replacement started so far polls. */
  void awaitRestarts() throws InterruptedException {
    while (true) {
      List<Future<?>> pending;
      synchronized (pendingRestarts) {
        pending = new ArrayList<>(pendingRestarts);
        pendingRestarts.clear();
      }
      if (pending.isEmpty()) {
        return;
      }
      for (Future<?> restart : pending) {
        try {
          restart.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("a worker did not start again: " + e.getCause(), e);
        }
      }
    }
  }

  /**
   * Stops the workers (SIGKILL, not counted as kills: nothing is in flight once every session
   * settled), so that no line is appended to the ledgers while they are read.
   */
  void stopWorkers() throws InterruptedException {
    closing = true;
    awaitRestarts();
    for (Slot slot : slots) {
      AgentsCommandProcess worker = slot.current;
      if (worker != null) {
        worker.kill();
      }
    }
  }

  /** The last lines each process of the cluster wrote, for a failure's report. */
  String tails() {
    StringBuilder text = new StringBuilder();
    for (Slot slot : slots) {
      AgentsCommandProcess worker = slot == null ? null : slot.current;
      if (worker != null) {
        text.append("\n--- ").append(worker.name()).append(" (pid ").append(worker.pid());
        text.append(") ---\n").append(worker.tail(15));
      }
    }
    AgentsCommandProcess c = console;
    if (c != null) {
      text.append("\n--- ").append(c.name()).append(" ---\n").append(c.tail(15));
    }
    return text.toString();
  }

  @Override
  public void close() {
    closing = true;
    restarts.shutdownNow();
    for (Slot slot : slots) {
      if (slot != null && slot.current != null) {
        destroy(slot.current);
      }
    }
    if (console != null) {
      destroy(console);
    }
    if (server != null) {
      server.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  // ---- starts ---------------------------------------------------------------------------------

  private TemporalDevServer startServer() {
    return TemporalDevServer.start(
        TemporalDevServer.Options.newBuilder(temporalCli)
            .port(temporalPort)
            .databaseFile(temporalDb())
            // Durable against the kill -9 the storm deals the server, not against a power loss,
            // which it does not deal: committed state survives in the WAL, with far fewer fsyncs.
            .sqlitePragma("journal_mode=wal")
            .sqlitePragma("synchronous=normal")
            .logFile(logs.resolve("temporal-server.log"))
            .build());
  }

  private Path temporalDb() {
    return dir.resolve("temporal.db");
  }

  private AgentsCommandProcess startWorker(Slot slot) {
    List<String> args =
        List.of(
            "worker",
            "--temporal",
            address(),
            "--task-queue",
            TASK_QUEUE,
            "--projection",
            liveUrl,
            "--agents",
            agentsFile.toString(),
            "--model",
            LedgerModelFactory.PREFIX + ledgerDir);
    return startUntilReady(
        () -> {
          slot.starts++;
          return AgentsCommandProcess.start(
              "worker-" + slot.number + "." + slot.starts,
              dir,
              logs.resolve("worker-" + slot.number + ".log"),
              AgentsCommandProcess.SERVICE_JVM,
              args,
              Map.of(LedgerTools.VARIABLE, ledgerDir.toString()));
        },
        "worker",
        WORKER_READY);
  }

  private AgentsCommandProcess startConsole() {
    List<String> args =
        List.of(
            "console",
            "--port",
            String.valueOf(consolePort),
            "--temporal",
            address(),
            "--task-queue",
            TASK_QUEUE,
            "--projection",
            liveUrl);
    return startUntilReady(
        () -> {
          consoleStarts++;
          return AgentsCommandProcess.start(
              "console." + consoleStarts,
              dir,
              logs.resolve("console.log"),
              AgentsCommandProcess.SERVICE_JVM,
              args,
              Map.of());
        },
        "console",
        CONSOLE_READY);
  }

  private interface Launch {
    AgentsCommandProcess launch();
  }

  /**
   * Starts a process until one reaches its ready line: a start that fails (what it needs is down)
   * is counted and tried again a second later, for at most {@link #GIVE_UP}.
   */
  private AgentsCommandProcess startUntilReady(Launch launch, String what, String ready) {
    long deadline = System.nanoTime() + GIVE_UP.toNanos();
    try {
      while (true) {
        AgentsCommandProcess process = launch.launch();
        if (process.awaitReady(ready, READY_TIMEOUT)) {
          return process;
        }
        String reason = lastLine(process.tail(5));
        timeline.failedStart(what, reason);
        if (process.isAlive()) {
          process.kill();
        }
        if (closing || System.nanoTime() > deadline) {
          throw new IllegalStateException(
              what + " did not start for " + GIVE_UP + ":\n" + process.tail(20));
        }
        Thread.sleep(1000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting the " + what, e);
    }
  }

  private static String lastLine(String text) {
    List<String> lines = text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    String line = lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "(no message)";
    }
    String line = text.lines().findFirst().orElse("").strip();
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }

  private static void destroy(AgentsCommandProcess process) {
    try {
      process.kill();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // Closing: a process that does not die is left to the operating system.
    }
  }

  @FormatMethod
  private void say(String format, Object... args) {
    progress.println(
        "chaos " + timeline.at(System.currentTimeMillis()) + ": " + String.format(format, args));
    progress.flush();
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    }
  }

  static ThreadFactory daemon(String name) {
    AtomicInteger count = new AtomicInteger();
    return task -> {
      Thread thread = new Thread(task, "chaos-" + name + "-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }
}
