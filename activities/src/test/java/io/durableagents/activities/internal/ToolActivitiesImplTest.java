package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.artifacts.ArtifactStore;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolCancellation;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.ToolActivities;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker heartbeats for a running tool, so a dead worker is noticed within the heartbeat
 * timeout, and the call's cancellation reaches its handler: a cancel of the run, the call's timeout
 * and the worker's shutdown.
 */
class ToolActivitiesImplTest {
  private final AtomicInteger heartbeats = new AtomicInteger();
  private final RunningTools running = new RunningTools();
  private final Map<String, Object> seen = new ConcurrentHashMap<>();
  private TestActivityEnvironment environment;
  private ToolActivities tools;

  @BeforeEach
  void setUp() {
    Agent agent =
        Agent.newBuilder("worker")
            .setTools(
                sleeping("slow", ToolActivitiesImpl.HEARTBEAT_INTERVAL.plusMillis(700)),
                sleeping("quick", Duration.ofMillis(50)),
                cancellable("long"),
                stubborn("stubborn"))
            .build();
    AgentRegistry registry =
        new AgentRegistry(
            List.of(agent), "worker", ScriptedModelProvider.fromJson("{\"turns\": []}"));
    environment = TestActivityEnvironment.newInstance();
    // The requests name no recorded definition, so the store is never asked.
    environment.registerActivitiesImplementations(
        new ToolActivitiesImpl(new AgentDefinitions(registry, null), 512 * 1024)
            .withRunningTools(running));
    environment.setActivityHeartbeatListener(Object.class, details -> heartbeats.incrementAndGet());
    tools =
        environment.newActivityStub(
            ToolActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(30))
                .setHeartbeatTimeout(Duration.ofSeconds(10))
                .build());
  }

  @AfterEach
  void tearDown() {
    environment.close();
  }

  @Test
  void aToolRunningLongerThanTheInterval_heartbeatsWithoutAnyCodeOfItsOwn() {
    ToolOutcome outcome = tools.executeTool(request("slow"));

    assertThat(outcome.error()).isFalse();
    assertThat(heartbeats.get()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void aQuickTool_sendsNoHeartbeat() {
    ToolOutcome outcome = tools.executeTool(request("quick"));

    assertThat(outcome.error()).isFalse();
    // No positive signal (the ticker is the worker's): no heartbeat through a first tick's time.
    await("no heartbeat through the first tick")
        .during(ToolActivitiesImpl.HEARTBEAT_INTERVAL.plusMillis(500))
        .atMost(ToolActivitiesImpl.HEARTBEAT_INTERVAL.plusSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .untilAsserted(() -> assertThat(heartbeats.get()).isZero());
  }

  @Test
  void aCancelDuringALongCall_interruptsItsHandler_andTheCallReportsItselfCancelled() {
    CompletableFuture<ToolOutcome> call = startedInBackground(tools, "long");

    long cancelledAt = System.nanoTime();
    environment.requestCancelActivity();

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(seen.get("reason")).isEqualTo(ToolCancellation.Reason.RUN_CANCELLED);
    assertThat(seen).containsEntry("callback", true).containsEntry("interrupted", true);
    // Heartbeats go every second, so the handler learns of the cancel within about one.
    assertThat(Duration.ofNanos((long) seen.get("stoppedAt") - cancelledAt))
        .isLessThan(Duration.ofSeconds(3));
  }

  @Test
  void aHandlerThatIgnoresTheCancel_hasItsRealResultRecorded() throws Exception {
    CompletableFuture<ToolOutcome> call = startedInBackground(tools, "stubborn");

    environment.requestCancelActivity();

    ToolOutcome outcome = call.get(10, TimeUnit.SECONDS);
    assertThat(outcome.error()).isFalse();
    assertThat(outcome.result().get("finished").asBoolean()).isTrue();
    assertThat(outcome.result().get("sawCancel").asBoolean()).isTrue();
  }

  @Test
  void theCallsTimeout_cancelsItsHandler_andFailsTheAttempt() {
    ToolActivities timed =
        environment.newActivityStub(
            ToolActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofSeconds(1))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());

    assertThatThrownBy(() -> timed.executeTool(request("long")))
        .hasStackTraceContaining(FailureTypes.TOOL_TRANSIENT);
    assertThat(seen.get("reason")).isEqualTo(ToolCancellation.Reason.TIMED_OUT);
  }

  @Test
  void aWorkerShutdown_cancelsTheRunningCalls_soTheyRunAgainElsewhere() {
    CompletableFuture<ToolOutcome> call = startedInBackground(tools, "long");

    running.cancelAllForShutdown();

    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
        .hasStackTraceContaining(FailureTypes.TOOL_TRANSIENT)
        .hasStackTraceContaining("the worker is shutting down");
    assertThat(seen.get("reason")).isEqualTo(ToolCancellation.Reason.WORKER_SHUTDOWN);
  }

  @Test
  void aResultTooLargeToStore_namesTheBuilderMethodThatSetsTheLimit() {
    Agent agent =
        Agent.newBuilder("worker")
            .setTools(
                Tool.newBuilder("big")
                    .setInputSchema("{\"type\": \"object\"}")
                    .setHandler((arguments, context) -> Map.of("text", "x".repeat(4096)))
                    .build())
            .build();
    AgentRegistry registry =
        new AgentRegistry(
            List.of(agent), "worker", ScriptedModelProvider.fromJson("{\"turns\": []}"));
    ArtifactStore failing =
        new ArtifactStore() {
          @Override
          public String put(byte[] bytes, String mediaType) {
            throw new IllegalStateException("disk full");
          }

          @Override
          public byte[] read(String artifactId) {
            throw new UnsupportedOperationException();
          }

          @Override
          public void delete(String artifactId) {
            throw new UnsupportedOperationException();
          }
        };
    TestActivityEnvironment small = TestActivityEnvironment.newInstance();
    try {
      small.registerActivitiesImplementations(
          new ToolActivitiesImpl(new AgentDefinitions(registry, null), 1024)
              .withArtifacts(failing));
      ToolActivities stub =
          small.newActivityStub(
              ToolActivities.class,
              ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(30)).build());

      ToolOutcome outcome = stub.executeTool(request("big"));

      assertThat(outcome.error()).isTrue();
      // The option as a user sets it: the builder's method, not a field name.
      assertThat(outcome.result().toString())
          .contains("over the limit of 1024 bytes (AgentsPluginOptions.Builder.setMaxPayloadBytes)")
          .contains("disk full");
    } finally {
      small.close();
    }
  }

  private CompletableFuture<ToolOutcome> startedInBackground(ToolActivities stub, String tool) {
    CompletableFuture<ToolOutcome> call =
        CompletableFuture.supplyAsync(() -> stub.executeTool(request(tool)));
    await("the handler started")
        .atMost(Duration.ofSeconds(10))
        .until(() -> seen.containsKey("started"));
    return call;
  }

  /** Sleeps 30 s unless interrupted; records what it saw of its cancellation. */
  private Tool cancellable(String name) {
    return Tool.newBuilder(name)
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              context.onCancel(() -> seen.put("callback", true));
              seen.put("started", true);
              try {
                Thread.sleep(30_000);
                return Map.of("slept", true);
              } catch (InterruptedException e) {
                seen.put("stoppedAt", System.nanoTime());
                seen.put("interrupted", true);
                seen.put("reason", context.cancellation().reason());
                throw e;
              }
            })
        .build();
  }

  /** Finishes its 2 s of work whatever happens, as a tool that ignores cancellation does. */
  private Tool stubborn(String name) {
    return Tool.newBuilder(name)
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              seen.put("started", true);
              long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
              while (System.nanoTime() < end) {
                try {
                  Thread.sleep(50);
                } catch (InterruptedException ignored) {
                  // a tool that does not stop
                }
              }
              return Map.of("finished", true, "sawCancel", context.isCancelled());
            })
        .build();
  }

  private static Tool sleeping(String name, Duration duration) {
    return Tool.newBuilder(name)
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              Thread.sleep(duration.toMillis());
              return Map.of("slept", duration.toMillis());
            })
        .build();
  }

  private static ToolRequest request(String tool) {
    return new ToolRequest("s", "worker", 1, "call_1", tool, JsonNodeFactory.instance.objectNode());
  }
}
