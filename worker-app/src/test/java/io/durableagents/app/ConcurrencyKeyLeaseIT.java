package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Agent;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.SendOptions;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease workflow of one concurrency key on the real dev server, past its continue-as-new: 10
 * sessions send 6 runs each on one key, so the lease grants more than its 50 grants per workflow
 * run while acquires and releases keep arriving. Every run finishes, no two of them work at once,
 * the lease continued as new and completes once idle.
 */
class ConcurrencyKeyLeaseIT {
  private static final String TASK_QUEUE = "keyed-lease";
  private static final String KEY = "account:7";
  private static final int SESSIONS = 10;
  private static final int RUNS_PER_SESSION = 6;
  private static final Duration DEADLINE = Duration.ofMinutes(6);

  @TempDir Path dir;

  @Test
  void aBusyKey_continuesAsNew_withoutLosingOrDoublingALease() throws Exception {
    AtomicInteger working = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    Tool work =
        Tool.newBuilder("work")
            .setDescription("Works briefly; counts how many calls work at once.")
            .setInputSchema("{\"type\": \"object\"}")
            .setHandler(
                (arguments, context) -> {
                  mostAtOnce.accumulateAndGet(working.incrementAndGet(), Math::max);
                  try {
                    Thread.sleep(20);
                  } finally {
                    working.decrementAndGet();
                  }
                  calls.incrementAndGet();
                  return Map.of("ok", true);
                })
            .build();
    StringBuilder script = new StringBuilder("{\"turns\": [");
    for (int run = 0; run < RUNS_PER_SESSION; run++) {
      script
          .append(run == 0 ? "" : ",")
          .append("{\"toolCalls\": [{\"name\": \"work\", \"arguments\": {}}]},")
          .append("{\"text\": \"done ")
          .append(run)
          .append("\"}");
    }
    script.append("]}");

    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentStore store = AgentStores.open("jdbc:sqlite:" + dir.resolve("projection.db"))) {
      WorkflowClient client = WorkflowClient.newInstance(AgentWorker.connect(server.address()));
      AgentsPlugin plugin =
          new AgentsPlugin(
              AgentsPluginOptions.newBuilder()
                  .addAgent(Agent.newBuilder("keyed").setTools(work).setMaxSteps(5).build())
                  .setModelProvider(ScriptedModelProvider.fromJson(script.toString()))
                  .setStore(store)
                  .setTaskQueues(TASK_QUEUE)
                  .build());
      WorkerFactory factory =
          WorkerFactory.newInstance(
              client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      factory.newWorker(TASK_QUEUE);
      factory.start();
      ExecutorService drivers = Executors.newFixedThreadPool(SESSIONS);
      try {
        AgentClient agents =
            AgentClient.newInstance(
                client, AgentClientOptions.newBuilder().setTaskQueue(TASK_QUEUE).build());
        SendOptions keyed = SendOptions.newBuilder().setConcurrencyKey(KEY).build();
        List<Future<List<RunResult>>> sessions = new ArrayList<>();
        for (int i = 0; i < SESSIONS; i++) {
          String session = "lease-" + i;
          sessions.add(
              drivers.submit(
                  () -> {
                    List<RunResult> results = new ArrayList<>();
                    for (int run = 1; run <= RUNS_PER_SESSION; run++) {
                      results.add(agents.send(session, "message " + run, keyed));
                    }
                    return results;
                  }));
        }
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        for (Future<List<RunResult>> session : sessions) {
          assertThat(session.get(Math.max(deadline - System.nanoTime(), 1), TimeUnit.NANOSECONDS))
              .hasSize(RUNS_PER_SESSION)
              .allSatisfy(result -> assertThat(result.status()).isEqualTo(RunStatus.FINISHED));
        }

        assertThat(calls).hasValue(SESSIONS * RUNS_PER_SESSION);
        assertThat(mostAtOnce).as("calls of one key working at once").hasValue(1);
        String leaseId = ConcurrencyKeyWorkflow.workflowId(KEY);
        // More than one workflow run of the lease: it continued as new (visibility lags, the more
        // so on a busy machine: as long as the server may take).
        long leaseRuns =
            org.awaitility.Awaitility.await("the lease's workflow runs")
                .atMost(Duration.ofMinutes(5))
                .until(
                    () -> client.listExecutions("WorkflowId=\"" + leaseId + "\"").count(),
                    count -> count >= 2);
        org.awaitility.Awaitility.await("the lease completes once idle")
            .atMost(Duration.ofMinutes(2))
            .until(
                () -> client.newUntypedWorkflowStub(leaseId).describe().getStatus(),
                status -> status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
        System.out.printf(
            "ConcurrencyKeyLeaseIT summary: runs=%d leaseWorkflowRuns=%d mostAtOnce=%d%n",
            calls.get(), leaseRuns, mostAtOnce.get());
      } finally {
        drivers.shutdownNow();
        factory.shutdownNow();
        factory.awaitTermination(10, TimeUnit.SECONDS);
      }
    }
  }
}
