package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.SearchAttributeUpserts;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolProvider;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.RunResolution;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run's start whose agent has a tool provider that cannot list its tools (an MCP server whose
 * command does not exist): each attempt logs one line naming the agent, the provider and the
 * reason, and fails as a benign failure, which the Temporal SDK logs without a stack trace.
 */
class AgentActivitiesImplTest {
  private static final String REASON =
      "MCP server 'weather' cannot be started: 'weather-server' is not on the PATH";

  private final AtomicInteger listings = new AtomicInteger();
  private TestActivityEnvironment environment;

  @AfterEach
  void tearDown() {
    if (environment != null) {
      environment.close();
    }
  }

  @Test
  void aProviderThatCannotList_logsOneLinePerAttempt_andFailsBenign_withoutItsStackTrace() {
    AgentActivities activities = activities(weatherDown());
    PrintStream stderr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Throwable failure;
    // slf4j-simple writes to the System.err of the moment.
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      failure =
          catchThrowable(() -> activities.resolveRun(new RunResolution("concierge", null, null)));
    } finally {
      System.setErr(stderr);
    }

    assertThat(failure).isInstanceOf(ActivityFailure.class);
    ApplicationFailure cause = (ApplicationFailure) failure.getCause();
    assertThat(cause.getCategory()).isEqualTo(ApplicationErrorCategory.BENIGN);
    assertThat(cause.getType()).isEqualTo(FailureTypes.AGENT_UNAVAILABLE);
    assertThat(cause.getOriginalMessage())
        .isEqualTo("Agent 'concierge' cannot list the tools of MCP server 'weather': " + REASON);
    assertThat(cause.getCause()).as("no stack trace of the provider's failure").isNull();
    String log = logged.toString(StandardCharsets.UTF_8);
    System.err.print(log);
    assertThat(log.lines().toList())
        .hasSize(listings.get())
        .allSatisfy(
            line ->
                assertThat(line)
                    .contains("WARN")
                    .contains(
                        "Agent 'concierge' cannot list the tools of MCP server 'weather': "
                            + REASON
                            + " (run start, attempt "));
  }

  private ToolProvider weatherDown() {
    return new ToolProvider() {
      @Override
      public String name() {
        return "MCP server 'weather'";
      }

      @Override
      public List<Tool> listTools() {
        listings.incrementAndGet();
        throw new IllegalStateException(REASON, new IOException("error=2, No such file"));
      }
    };
  }

  private AgentActivities activities(ToolProvider provider) {
    Agent agent = Agent.newBuilder("concierge").addToolProvider(provider).build();
    AgentRegistry registry =
        new AgentRegistry(
            List.of(agent), "concierge", ScriptedModelProvider.fromJson("{\"turns\": []}"));
    environment = TestActivityEnvironment.newInstance();
    // A new run lists its providers before it records anything: the store is never asked.
    environment.registerActivitiesImplementations(
        new AgentActivitiesImpl(
            new AgentDefinitions(registry, null),
            new SearchAttributeCheck(SearchAttributeUpserts.WHEN_REGISTERED)));
    return environment.newActivityStub(
        AgentActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(
                RetryOptions.newBuilder()
                    .setInitialInterval(Duration.ofMillis(10))
                    .setMaximumAttempts(AgentActivitiesImpl.ATTEMPTS)
                    .build())
            .build());
  }
}
