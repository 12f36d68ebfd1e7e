package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.DriftPolicy;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.model.ToolDefinition;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolProvider;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.Decision;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent's {@link ToolProvider}: its tools are listed when a run starts, the model sees them,
 * their calls run like any tool's; a provider whose tools changed while a run waited is drift of
 * that run; a required provider that cannot list fails the run's start, naming it.
 */
class ToolProviderTest {
  private static final String SCRIPT =
      "{'turns':[{'text':'looking','toolCalls':[{'name':'lookup','arguments':{'q':'x'}}]},"
          + "{'text':'paying','toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
          + "{'text':'done'}]}";

  @TempDir Path dir;

  private SessionTestKit kit;
  private final List<List<String>> toolsSeen = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    if (kit != null) {
      kit.close();
    }
  }

  /** A provider of one tool {@code lookup} with {@code description}; counts its listings. */
  private static final class LookupProvider implements ToolProvider {
    final AtomicInteger listings = new AtomicInteger();
    volatile String description;
    volatile RuntimeException down;

    LookupProvider(String description) {
      this.description = description;
    }

    @Override
    public String name() {
      return "lookup service";
    }

    @Override
    public List<Tool> listTools() {
      listings.incrementAndGet();
      if (down != null) {
        throw down;
      }
      return List.of(
          Tool.newBuilder("lookup")
              .setDescription(description)
              .setHandler((arguments, context) -> Map.of("found", description))
              .build());
    }
  }

  private ModelProvider recording() {
    ScriptedModelProvider script = Scripts.of(SCRIPT);
    return (request, stream) -> {
      toolsSeen.add(request.tools().stream().map(ToolDefinition::name).toList());
      return script.generate(request, stream);
    };
  }

  @Test
  void theProvidersToolsAreListedAtTheRunsStart_seenByTheModel_andCalledLikeAnyTool() {
    LookupProvider provider = new LookupProvider("v1");
    kit =
        new SessionTestKit(
            dir,
            recording(),
            agent -> agent.addToolProvider(provider),
            io.temporal.worker.WorkerFactoryOptions.newBuilder());

    RunResult paused = kit.send("p-1", "look it up and pay");

    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(toolsSeen.get(0)).contains("pay", "lookup");
    assertThat(paused.toolCalls().get(0).name()).isEqualTo("lookup");
    assertThat(paused.toolCalls().get(0).result().get("found").asText()).isEqualTo("v1");
    assertThat(provider.listings.get()).as("listed once, at the run's start").isEqualTo(1);
  }

  @Test
  void aProviderWhoseToolsChangedWhileTheRunWaited_isDriftOfTheRun() {
    LookupProvider v1 = new LookupProvider("v1");
    kit =
        new SessionTestKit(
            dir,
            recording(),
            agent -> agent.addToolProvider(v1).setOnAgentDrift(DriftPolicy.ERROR),
            io.temporal.worker.WorkerFactoryOptions.newBuilder(),
            io.durableagents.agent.Execution.ACTIVITY,
            io.temporal.worker.WorkerOptions.newBuilder()
                .setStickyQueueScheduleToStartTimeout(java.time.Duration.ZERO)
                .build());
    RunResult paused = kit.send("p-2", "look it up and pay");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);

    LookupProvider v2 = new LookupProvider("v2: another description");
    kit.redeploy(agent -> agent.addToolProvider(v2).setOnAgentDrift(DriftPolicy.ERROR));
    kit.session("p-2").approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    RunResult done = kit.attach("p-2");

    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(done.error().code()).isEqualTo(FailureTypes.AGENT_DRIFT);
    assertThat(done.error().message()).contains("tools changed: lookup (description)");
  }

  @Test
  void aRequiredProviderThatCannotList_failsTheRunsStart_namingIt() {
    LookupProvider provider = new LookupProvider("v1");
    provider.down = new IllegalStateException("connection refused");
    kit =
        new SessionTestKit(
            dir,
            recording(),
            agent -> agent.addToolProvider(provider),
            io.temporal.worker.WorkerFactoryOptions.newBuilder());

    PrintStream stderr = System.err;
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    RunResult failed;
    // slf4j-simple writes to the System.err of the moment.
    System.setErr(new PrintStream(logged, true, StandardCharsets.UTF_8));
    try {
      failed = kit.send("p-3", "look it up");
    } finally {
      System.setErr(stderr);
    }

    assertThat(failed.status()).isEqualTo(RunStatus.FAILED);
    assertThat(failed.error().code()).isEqualTo(FailureTypes.AGENT_UNAVAILABLE);
    assertThat(failed.error().message())
        .contains("cannot list the tools of lookup service: connection refused");
    assertThat(toolsSeen).as("no model turn").isEmpty();
    String log = logged.toString(StandardCharsets.UTF_8);
    System.err.print(log);
    assertThat(log.lines().filter(line -> line.contains("lookup service")).toList())
        .as("one line per attempt at the run's start, naming the agent, the provider and why")
        .hasSize(provider.listings.get())
        .allSatisfy(
            line ->
                assertThat(line)
                    .contains("WARN")
                    .containsPattern(
                        "Agent '[^']+' cannot list the tools of lookup service: connection refused"
                            + " \\(run start, attempt [1-5] of 5\\)$"));
    assertThat(provider.listings.get()).isEqualTo(5);
    assertThat(log).doesNotContain("\tat ").doesNotContain("Caused by");
  }
}
