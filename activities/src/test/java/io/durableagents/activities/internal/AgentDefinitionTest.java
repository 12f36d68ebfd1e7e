package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A definition read back from the store is the definition that was recorded. */
class AgentDefinitionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static Agent.Builder agent() {
    return Agent.newBuilder("concierge")
        .setModel("m1")
        .setInstructions("Book tables.")
        .setMaxSteps(7)
        .setRunTimeout(Duration.ofMinutes(2))
        .setTools(
            Tool.newBuilder("book")
                .setDescription("Books a table.")
                .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                .setHandler((args, ctx) -> Map.of())
                .build());
  }

  @Test
  void readBackFromItsJson_itIsEqual_andHasTheSameFingerprint() {
    AgentDefinition recorded = AgentDefinition.of(agent().build(), null);
    AgentDefinition read = AgentDefinition.fromJson(recorded.toJson());

    assertThat(read).isEqualTo(recorded);
    assertThat(read.fingerprint()).isEqualTo(recorded.fingerprint()).startsWith("def:");
    assertThat(read.tool("book").approval()).isEqualTo(AgentDefinition.ALWAYS);
  }

  @Test
  void whatChanged_namesEachChange_andNothingElse() {
    AgentDefinition before =
        AgentDefinition.of(agent().build(), JSON.createObjectNode().put("tier", "gold"));
    AgentDefinition after =
        AgentDefinition.of(
            agent()
                .setModel("m2")
                .setInstructions("Book tables fast.")
                .setMaxSteps(3)
                .addTools(
                    Tool.newBuilder("refund")
                        .setDescription("Refunds.")
                        .setHandler((args, ctx) -> Map.of())
                        .build())
                .build(),
            JSON.createObjectNode().put("tier", "gold"));

    assertThat(after.fingerprint()).isNotEqualTo(before.fingerprint());
    assertThat(DriftReport.between(AgentDefinition.fromJson(before.toJson()), after))
        .isEqualTo("model m1 -> m2; instructions changed; tools added: refund; maxSteps 7 -> 3");
  }

  @Test
  void theRunConfiguration_isPartOfTheFingerprint() {
    Agent agent = agent().build();
    assertThat(AgentDefinition.of(agent, JSON.createObjectNode().put("tier", "gold")).fingerprint())
        .isNotEqualTo(AgentDefinition.of(agent, null).fingerprint())
        .isNotEqualTo(
            AgentDefinition.of(agent, JSON.createObjectNode().put("tier", "silver")).fingerprint());
    assertThat(AgentDefinition.of(agent, JSON.createObjectNode()).fingerprint())
        .isEqualTo(AgentDefinition.of(agent, null).fingerprint());
  }
}
