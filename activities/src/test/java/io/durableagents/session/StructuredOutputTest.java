package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.RunResult;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An agent's output schema: the final text is parsed and validated. */
class StructuredOutputTest {
  private static final String SCHEMA =
      "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},\"temperatureC\":{\"type\":\"integer\"}},"
          + "\"required\":[\"city\",\"temperatureC\"]}";

  @TempDir Path dir;

  private SessionTestKit kit(String finalText) {
    String script =
        "{\"turns\":[{\"toolCalls\":[{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}]},"
            + "{\"text\":"
            + com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.textNode(finalText)
            + "}]}";
    return new SessionTestKit(
        dir,
        ScriptedModelProvider.fromJson(script),
        agent -> agent.setMaxSteps(5).setOutputSchema(SCHEMA),
        WorkerFactoryOptions.newBuilder());
  }

  @Test
  void aValidFinalAnswer_isParsedIntoOutput() {
    try (SessionTestKit kit = kit("```json\n{\"city\": \"Paris\", \"temperatureC\": 21}\n```")) {
      RunResult result = kit.send("out-1", "weather as JSON");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.output().get("city").asText()).isEqualTo("Paris");
      assertThat(result.output().get("temperatureC").asInt()).isEqualTo(21);
    }
  }

  @Test
  void anInvalidFinalAnswer_failsTheRunWithInvalidOutput() {
    try (SessionTestKit kit = kit("{\"city\": \"Paris\"}")) {
      RunResult result = kit.send("out-2", "weather as JSON");

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo("invalid_output");
      assertThat(result.error().message()).contains("temperatureC");
      assertThat(result.output()).isNull();
      assertThat(kit.store.history("out-2", 1).get(0).status()).isEqualTo(RunStatus.FAILED);
    }
  }
}
