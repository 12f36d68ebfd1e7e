package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.RunStatus;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code AgentClient}'s approve, reject and awaitRun against real sessions: the
 * plugin with a scripted model and a SQLite store, on Temporal's in-process test server.
 */
class AgentClientSessionTest {
  private static final String TASK_QUEUE = AgentClientOptions.DEFAULT_TASK_QUEUE;
  /** A paid call of 500 waits for a decision between two calls that do not. */
  private static final String GATED =
      "{\"turns\":[{\"text\":\"paying\",\"toolCalls\":["
          + "{\"name\":\"echo\",\"arguments\":{\"text\":\"before\"}},"
          + "{\"name\":\"pay\",\"arguments\":{\"amount\":500}},"
          + "{\"name\":\"echo\",\"arguments\":{\"text\":\"after\"}}]},"
          + "{\"text\":\"all done\"}]}";
  @TempDir Path dir;

  private TestWorkflowEnvironment env;
  private AgentStore store;
  private ProjectionReader projection;
  private AgentClient agents;
  /** Invocations per tool call id: the tools' side effects. */
  private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  private void start(String script) {
    String url = "jdbc:sqlite:" + dir.resolve("projection.db");
    store = AgentStores.open(url);
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent())
                .modelProvider(ScriptedModelProvider.fromJson(script))
                .store(store)
                .build());
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                .build());
    env.newWorker(TASK_QUEUE);
    env.start();
    projection = ProjectionReader.open(url);
    agents =
        AgentClient.newInstance(
            env.getWorkflowClient(), AgentClientOptions.newBuilder().setProjection(projection).build());
  }

  private Agent agent() {
    return Agent.newBuilder("tester")
        .model("scripted")
        .instructions("test agent")
        .approvalTimeout(Duration.ofHours(1))
        .tools(
            Tool.newBuilder("echo")
                .description("Echoes its text.")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                .handler((args, ctx) -> {
                  effect(ctx.toolCallId());
                  return Map.of("echo", args.path("text").asText());
                })
                .build(),
            Tool.newBuilder("pay")
                .description("Pays an amount; amounts over 100 need approval.")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"amount\":{\"type\":\"integer\"}}}")
                .needsApproval(args -> args.path("amount").asInt() > 100)
                .handler((args, ctx) -> {
                  effect(ctx.toolCallId());
                  return Map.of("paid", args.path("amount").asInt());
                })
                .build(),
            Tool.newBuilder("slow")
                .description("Takes a while.")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}}}")
                .handler((args, ctx) -> {
                  effect(ctx.toolCallId());
                  Thread.sleep(args.path("ms").asLong());
                  return Map.of("slept", true);
                })
                .build())
        .build();
  }

  private void effect(String toolCallId) {
    effects.computeIfAbsent(toolCallId, id -> new AtomicInteger()).incrementAndGet();
  }

  @AfterEach
  void close() {
    if (env != null) {
      env.close();
    }
    if (store != null) {
      store.close();
    }
  }

  private RunResult paused(String sessionId) {
    RunResult paused = agents.send(sessionId, "pay the bill");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.approval().toolName()).isEqualTo("pay");
    return paused;
  }

  @Test
  void approve_runsTheGatedCall_andAwaitRunReturnsTheRunItLetGoOn() {
    start(GATED);
    RunResult paused = paused("approve-1");

    DecisionOutcome outcome =
        agents.approve(
            "approve-1",
            paused.approval().approvalId(),
            DecisionOptions.newBuilder().setNote("ok").setDecidedBy("alice").build());
    RunResult done = agents.awaitRun("approve-1");

    assertThat(outcome.outcome()).isEqualTo(DecisionOutcome.APPROVED);
    assertThat(outcome.approvalId()).isEqualTo(paused.approval().approvalId());
    assertThat(outcome.toolCallId()).isEqualTo("call_0_1");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("all done");
    assertThat(done.run()).isEqualTo(paused.run());
    assertThat(done.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(500);
    assertThat(done.messages()).hasSize(done.messageCount());
    assertThat(effects).containsOnlyKeys("call_0_0", "call_0_1", "call_0_2");
    assertThat(projection.approvals(false)).singleElement().satisfies(row -> {
      assertThat(row.status()).isEqualTo("approved");
      assertThat(row.note()).isEqualTo("ok");
      assertThat(row.decidedBy()).isEqualTo("alice");
    });
    // With nothing in progress, awaitRun answers the last run's result again.
    assertThat(agents.awaitRun("approve-1").text()).isEqualTo("all done");
  }

  @Test
  void reject_withANote_givesTheCallARejection_andTheToolNeverRuns() {
    start(GATED);
    RunResult paused = paused("reject-1");

    DecisionOutcome outcome = agents.reject("reject-1", paused.approval().approvalId(), "too much");
    RunResult done = agents.awaitRun("reject-1");

    assertThat(outcome.outcome()).isEqualTo(DecisionOutcome.REJECTED);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls()).extracting(ToolCallRecord::id).containsExactly("call_0_0", "call_0_1", "call_0_2");
    assertThat(done.toolCalls().get(1).result().get("error").asText()).isEqualTo("rejected");
    assertThat(done.toolCalls().get(1).result().get("note").asText()).isEqualTo("too much");
    assertThat(effects).containsOnlyKeys("call_0_0", "call_0_2");
    assertThat(projection.approvals(false)).singleElement().satisfies(row -> {
      assertThat(row.status()).isEqualTo("rejected");
      assertThat(row.note()).isEqualTo("too much");
      assertThat(row.decidedBy()).isNull();
    });
  }

  @Test
  void aSecondDecision_orAnUnknownApproval_isRefusedBySession() {
    start(GATED);
    RunResult paused = paused("twice-1");
    String approvalId = paused.approval().approvalId();
    agents.approve("twice-1", approvalId);

    assertThatThrownBy(() -> agents.reject("twice-1", approvalId))
        .isInstanceOfSatisfying(ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isTrue());
    assertThatThrownBy(() -> agents.approve("twice-1", "no-such-approval"))
        .isInstanceOfSatisfying(ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isFalse());
    assertThat(agents.awaitRun("twice-1").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(effects.get("call_0_1").get()).isEqualTo(1);
  }

  @Test
  void awaitRun_andDecisions_onAnUnknownSession_areSessionNotFound() {
    start(GATED);

    assertThatThrownBy(() -> agents.awaitRun("nobody-1")).isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> agents.approve("nobody-1", "a-1")).isInstanceOf(SessionNotFoundException.class);
  }
}
