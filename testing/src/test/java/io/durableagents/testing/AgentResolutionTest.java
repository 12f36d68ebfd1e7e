package io.durableagents.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.client.SendOptions;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelResponse;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resolving a run's agent ({@code agents.ResolveRun}) is retried without a limit only while the
 * store is down: an unknown agent and a refused run configuration fail the run at once, and any
 * other failure after five attempts.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AgentResolutionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AtomicInteger factoryCalls = new AtomicInteger();

  private AgentTestEnvironment start() {
    return AgentTestEnvironment.newBuilder()
        .addAgent(Agent.newBuilder("static").setModel("scripted").build())
        .setModelProvider(
            (request, stream) -> new ModelResponse("served", List.of(), null, new Usage(3, 2)))
        .addPluginOptions(
            options ->
                options.addDynamicAgent(
                    "picky",
                    config -> {
                      factoryCalls.incrementAndGet();
                      String tier = config.path("tier").asText("standard");
                      if (tier.equals("bronze")) {
                        throw new IllegalArgumentException("no bronze tier");
                      }
                      if (tier.equals("broken")) {
                        throw new IllegalStateException("the tier catalogue is broken");
                      }
                      return Agent.newBuilder("picky").setModel("scripted").build();
                    }))
        .start();
  }

  private static SendOptions picky(String tier) {
    return SendOptions.newBuilder()
        .setAgent("picky")
        .setRunConfig(JSON.createObjectNode().put("tier", tier))
        .build();
  }

  @Test
  void anUnknownAgent_failsTheRunAtOnce() {
    try (AgentTestEnvironment env = start()) {
      RunResult result =
          env.client()
              .send("unknown-1", "hello", SendOptions.newBuilder().setAgent("nobody").build());

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo(FailureTypes.UNKNOWN_AGENT);
      assertThat(result.error().message()).contains("'nobody'");
    }
  }

  @Test
  void aRunConfigurationTheFactoryRefuses_failsTheRunAtOnce() {
    try (AgentTestEnvironment env = start()) {
      RunResult result = env.client().send("refused-1", "hello", picky("bronze"));

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo(FailureTypes.INVALID_INPUT);
      assertThat(result.error().message()).contains("no bronze tier");
      assertThat(factoryCalls).hasValue(1);
    }
  }

  @Test
  void aFactoryThatThrows_failsTheRunWithAgentUnavailable_afterFiveAttempts() {
    try (AgentTestEnvironment env = start()) {
      RunResult result = env.client().send("broken-1", "hello", picky("broken"));

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo(FailureTypes.AGENT_UNAVAILABLE);
      assertThat(result.error().message())
          .contains("'picky'")
          .contains("after 5 attempts")
          .contains("the tier catalogue is broken");
      assertThat(factoryCalls).hasValue(5);
    }
  }
}
