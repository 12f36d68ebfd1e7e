package io.durableagents.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.tools.Tool;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentTest {
  private static Tool tool(String name) {
    return Tool.newBuilder(name).setHandler((args, ctx) -> Map.of()).build();
  }

  @Test
  void toBuilder_copiesEverySetting_andLeavesTheOriginalAlone() {
    Agent original =
        Agent.newBuilder("concierge")
            .setModel("m1")
            .setInstructions("Book tables.")
            .setTools(tool("book"))
            .setMaxSteps(7)
            .setToolConcurrency(2)
            .setModelTimeout(Duration.ofSeconds(30))
            .setModelMaxAttempts(2)
            .setApprovalTimeout(Duration.ofHours(1))
            .setMaxTokens(500)
            .setRunTimeout(Duration.ofMinutes(2))
            .setOutputSchema("{\"type\":\"object\"}")
            .setTaskQueue("models")
            .setOnAgentDrift(DriftPolicy.ERROR)
            .build();

    Agent copy = original.toBuilder().setMaxSteps(3).addTools(tool("refund")).build();

    assertThat(copy.name()).isEqualTo("concierge");
    assertThat(copy.model()).isEqualTo("m1");
    assertThat(copy.instructions()).isEqualTo("Book tables.");
    assertThat(copy.tools()).extracting(Tool::name).containsExactly("book", "refund");
    assertThat(copy.maxSteps()).isEqualTo(3);
    assertThat(copy.toolConcurrency()).isEqualTo(2);
    assertThat(copy.modelTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(copy.modelMaxAttempts()).isEqualTo(2);
    assertThat(copy.approvalTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(copy.maxTokens()).isEqualTo(500);
    assertThat(copy.runTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(copy.outputSchema()).isEqualTo(original.outputSchema());
    assertThat(copy.taskQueue()).isEqualTo("models");
    assertThat(copy.onAgentDrift()).isEqualTo(DriftPolicy.ERROR);
    assertThat(original.maxSteps()).isEqualTo(7);
    assertThat(original.tools()).extracting(Tool::name).containsExactly("book");
  }

  @Test
  void setTools_replacesTheToolsSetBefore() {
    Agent agent =
        Agent.newBuilder("a").setTools(tool("one"), tool("two")).setTools(tool("three")).build();

    assertThat(agent.tools()).extracting(Tool::name).containsExactly("three");
  }
}
