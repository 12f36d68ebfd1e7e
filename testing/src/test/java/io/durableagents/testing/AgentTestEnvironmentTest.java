package io.durableagents.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Agent;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.session.RunStatus;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What an application's test does with the environment: one session, from send to a finished run.
 */
class AgentTestEnvironmentTest {
  private static final String SCRIPT =
      """
      {"turns": [
        {"toolCalls": [{"name": "add", "arguments": {"a": 2, "b": 3}}]},
        {"text": "2 + 3 = 5"}
      ]}
      """;

  private final AtomicInteger additions = new AtomicInteger();

  private Agent calculator() {
    return Agent.newBuilder("calculator")
        .setModel("scripted")
        .setInstructions("You add numbers with the add tool.")
        .setTools(
            Tool.newBuilder("add")
                .setDescription("Adds two integers.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
                        + "\"required\":[\"a\",\"b\"]}")
                .setHandler(
                    (args, ctx) -> {
                      additions.incrementAndGet();
                      return Map.of("sum", args.get("a").asLong() + args.get("b").asLong());
                    })
                .build())
        .build();
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aScriptedTurn_callsTheTool_andTheRunFinishes() {
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder().addAgent(calculator()).setScript(SCRIPT).start()) {
      RunResult result = env.client().send("calc-1", "What is 2 + 3?");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.text()).isEqualTo("2 + 3 = 5");
      assertThat(result.toolCalls())
          .singleElement()
          .satisfies(
              call -> {
                assertThat(call.name()).isEqualTo("add");
                assertThat(call.result().get("sum").asLong()).isEqualTo(5);
              });
      assertThat(additions).hasValue(1);
      // The transcript comes from the environment's projection.
      assertThat(result.messages())
          .extracting(Message::role)
          .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
      assertThat(env.client().status("calc-1"))
          .hasValueSatisfying(status -> assertThat(status.agent()).isEqualTo("calculator"));
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void close_deletesTheDirectoryItCreated() {
    Path directory;
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder().addAgent(calculator()).setScript(SCRIPT).start()) {
      directory = env.directory();
      assertThat(env.projectionUrl())
          .isEqualTo("jdbc:sqlite:" + directory.resolve("projection.db"));
      assertThat(directory.resolve("projection.db")).exists();
    }
    assertThat(Files.exists(directory)).isFalse();
  }
}
