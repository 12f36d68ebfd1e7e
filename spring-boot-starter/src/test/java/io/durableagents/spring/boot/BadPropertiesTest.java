package io.durableagents.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Agent;
import io.durableagents.model.ModelProvider;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.tools.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Settings the starter refuses: the application does not start, and the error names them. */
class BadPropertiesTest {
  static Stream<Arguments> badSettings() {
    return Stream.of(
        bad(
            "durable-agents.worker.max-payload-bytes",
            "durable-agents.worker.max-payload-bytes=lots"),
        bad(
            "durable-agents.client.recovery-timeout",
            "durable-agents.client.recovery-timeout=soon"),
        bad(
            "durable-agents.worker.tool-hook-timeout",
            "durable-agents.worker.tool-hook-timeout=-1s"),
        bad("durable-agents.default-agent", "durable-agents.default-agent=nobody"),
        bad(
            "durable-agents.agents.planner.tools[1]",
            "durable-agents.agents.planner.tools=get_weather,teleport"),
        bad(
            "durable-agents.agents.concierge",
            "durable-agents.agents.concierge.instructions=Twice."),
        bad("durable-agents.agents.planner", "durable-agents.agents.planner.max-steps=0"),
        bad("durable-agents.task-queue", "durable-agents.task-queue=elsewhere"),
        bad("durable-agents.worker.task-queues", "durable-agents.worker.task-queues=agents,other"),
        bad(
            "durable-agents.console.bind",
            "durable-agents.console.enabled=true",
            "durable-agents.console.port=0",
            "durable-agents.console.bind=0.0.0.0"),
        bad(
            "durable-agents.console.trusted-header",
            "durable-agents.console.enabled=true",
            "durable-agents.console.port=0",
            "durable-agents.console.tokens.alice=some-token",
            "durable-agents.console.trusted-header=X-Forwarded-User"));
  }

  private static Arguments bad(String property, String... settings) {
    return Arguments.of(property, settings);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSettings")
  void theStartFails_namingTheProperty(String property, String[] settings) {
    StarterContexts.withSqliteStore()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean("weather", Tool.class, () -> ConciergeAgent.tools().get(0))
        .withBean("model", ModelProvider.class, ConciergeAgent::defaultScript)
        .withPropertyValues(settings)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .anySatisfy(message -> assertThat(message).contains(property));
            });
  }

  private static List<String> messages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    return messages;
  }
}
