package io.durableagents.app.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The fault injector: from its start until the storm's end, at random instants (from the run's
 * seed), it kills workers ({@code kill -9}, every {@link ChaosConfig#workerKillEvery} on average,
 * one of the ready ones, replaced at once), stops PostgreSQL for {@link ChaosConfig#outage}, kills
 * the Temporal server and starts it on the same file, and restarts the console. The outages and
 * server kills never overlap each other (each is placed in a segment of its own between 10% and 90%
 * of the storm), so a duplicate can be put down to one of them; worker kills and console restarts
 * strike at any time, during those too.
 */
final class Storm {
  private final ChaosConfig config;
  private final Cluster cluster;
  private final Random random;
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private long startMillis;

  /** One large fault of the plan, at {@code offset} from the storm's start. */
  private record Planned(Duration offset, Timeline.Kind kind) {}

  Storm(ChaosConfig config, Cluster cluster, Random random) {
    this.config = config;
    this.cluster = cluster;
    this.random = random;
  }

  void start() {
    startMillis = System.currentTimeMillis();
    List<Planned> large = planLarge();
    List<Planned> consoles = planConsoleRestarts();
    threads.add(thread("large-faults", () -> runPlan(large)));
    threads.add(thread("console-restarts", () -> runPlan(consoles)));
    Random killerRandom = new Random(random.nextLong());
    threads.add(thread("worker-killer", () -> killWorkers(killerRandom)));
    threads.forEach(Thread::start);
  }

  /** Epoch milliseconds at which the storm ends. */
  long endMillis() {
    return startMillis + config.storm().toMillis();
  }

  /** Waits for the storm to end and every killed worker to be replaced. */
  void awaitEnd() throws InterruptedException {
    for (Thread thread : threads) {
      thread.join();
    }
    cluster.awaitRestarts();
  }

  /** The first fault that could not be done (a part that did not come back), or null. */
  Throwable failure() {
    return failure.get();
  }

  private List<Planned> planLarge() {
    List<Timeline.Kind> kinds = new ArrayList<>();
    for (int i = 0; i < config.outages(); i++) {
      kinds.add(Timeline.Kind.POSTGRES_OUTAGE);
    }
    for (int i = 0; i < config.serverKills(); i++) {
      kinds.add(Timeline.Kind.SERVER_KILL);
    }
    Collections.shuffle(kinds, random);
    long from = config.storm().toMillis() / 10;
    long segment = config.storm().toMillis() * 8 / 10 / kinds.size();
    List<Planned> plan = new ArrayList<>();
    for (int i = 0; i < kinds.size(); i++) {
      Timeline.Kind kind = kinds.get(i);
      // Room for the fault and the recovery after it within the segment.
      long length =
          kind == Timeline.Kind.POSTGRES_OUTAGE ? config.outage().toMillis() + 5_000 : 15_000;
      long slack = Math.max(0, segment - length);
      long offset = from + i * segment + (slack == 0 ? 0 : (long) (random.nextDouble() * slack));
      plan.add(new Planned(Duration.ofMillis(offset), kind));
    }
    return plan;
  }

  private List<Planned> planConsoleRestarts() {
    List<Planned> plan = new ArrayList<>();
    long storm = config.storm().toMillis();
    for (int i = 0; i < config.consoleRestarts(); i++) {
      long offset = storm / 20 + (long) (random.nextDouble() * storm * 9 / 10);
      plan.add(new Planned(Duration.ofMillis(offset), Timeline.Kind.CONSOLE_RESTART));
    }
    plan.sort((a, b) -> a.offset().compareTo(b.offset()));
    return plan;
  }

  private void runPlan(List<Planned> plan) throws InterruptedException {
    for (Planned fault : plan) {
      if (!sleepUntil(startMillis + fault.offset().toMillis())) {
        return;
      }
      switch (fault.kind()) {
        case POSTGRES_OUTAGE -> cluster.postgresOutage(config.outage());
        case SERVER_KILL -> cluster.killServer();
        case CONSOLE_RESTART -> cluster.restartConsole();
        default -> throw new IllegalStateException("not a planned fault: " + fault.kind());
      }
    }
  }

  private void killWorkers(Random killerRandom) throws InterruptedException {
    long mean = config.workerKillEvery().toMillis();
    while (true) {
      long wait = (long) (mean * (0.5 + killerRandom.nextDouble()));
      if (!sleepUntil(System.currentTimeMillis() + wait)) {
        return;
      }
      List<Integer> ready = new ArrayList<>();
      for (int slot = 0; slot < cluster.workerSlots(); slot++) {
        if (cluster.workerReady(slot)) {
          ready.add(slot);
        }
      }
      if (!ready.isEmpty()) {
        cluster.killWorker(ready.get(killerRandom.nextInt(ready.size())));
      }
    }
  }

  /** Sleeps until {@code epochMillis}; false when the storm ends first. */
  private boolean sleepUntil(long epochMillis) throws InterruptedException {
    if (epochMillis >= endMillis()) {
      return false;
    }
    long left = epochMillis - System.currentTimeMillis();
    if (left > 0) {
      Thread.sleep(left);
    }
    return true;
  }

  private interface Body {
    void run() throws Exception;
  }

  private Thread thread(String name, Body body) {
    Thread thread =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            },
            "chaos-" + name);
    thread.setDaemon(true);
    return thread;
  }
}
