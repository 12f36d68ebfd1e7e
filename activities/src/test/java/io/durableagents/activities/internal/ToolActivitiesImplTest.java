package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.internal.activity.ToolActivities;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The worker heartbeats for a running tool, so a dead worker is noticed within the heartbeat
 * timeout.
 */
class ToolActivitiesImplTest {
  private final AtomicInteger heartbeats = new AtomicInteger();
  private TestActivityEnvironment environment;
  private ToolActivities tools;

  @BeforeEach
  void setUp() {
    Agent agent =
        Agent.newBuilder("worker")
            .setTools(
                sleeping("slow", ToolActivitiesImpl.HEARTBEAT_INTERVAL.plusMillis(700)),
                sleeping("quick", Duration.ofMillis(50)))
            .build();
    AgentRegistry registry =
        new AgentRegistry(
            List.of(agent), "worker", ScriptedModelProvider.fromJson("{\"turns\": []}"));
    environment = TestActivityEnvironment.newInstance();
    // The requests name no recorded definition, so the store is never asked.
    environment.registerActivitiesImplementations(
        new ToolActivitiesImpl(new AgentDefinitions(registry, null), 512 * 1024));
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
