package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code AgentClient}'s approve, reject, awaitRun and async methods against real sessions: the
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

  /** Four slow turns: long enough for a session bounded to 25 events to continue as new. */
  private static final String SLOW =
      "{\"turns\":[{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
          + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
          + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":300}}]},"
          + "{\"toolCalls\":[{\"name\":\"slow\",\"arguments\":{\"ms\":1500}}]},{\"text\":\"end\"}]}";

  @TempDir Path dir;

  private TestWorkflowEnvironment env;
  private CheckpointStore store;
  private ProjectionReader projection;
  private AgentClient agents;

  /** Invocations per tool call id: the tools' side effects. */
  private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  private void start(String script) {
    String url = "jdbc:sqlite:" + dir.resolve("projection.db");
    store = CheckpointStore.of(AgentStores.open(url));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent())
                .setModelProvider(ScriptedModelProvider.fromJson(script))
                .setStore(store)
                .build());
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder().setPlugins(plugin).build())
                .build());
    env.newWorker(TASK_QUEUE);
    env.start();
    projection = ProjectionReader.open(url);
    agents =
        AgentClient.newInstance(
            env.getWorkflowClient(),
            AgentClientOptions.newBuilder().setProjection(projection).build());
  }

  private Agent agent() {
    return Agent.newBuilder("tester")
        .setModel("scripted")
        .setInstructions("test agent")
        .setApprovalTimeout(Duration.ofHours(1))
        .setTools(
            Tool.newBuilder("echo")
                .setDescription("Echoes its text.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      return Map.of("echo", args.path("text").asText());
                    })
                .build(),
            Tool.newBuilder("pay")
                .setDescription("Pays an amount; amounts over 100 need approval.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"amount\":{\"type\":\"integer\"}}}")
                .setApprovalPolicy(args -> args.path("amount").asInt() > 100)
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      return Map.of("paid", args.path("amount").asInt());
                    })
                .build(),
            Tool.newBuilder("slow")
                .setDescription("Takes a while.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}}}")
                .setHandler(
                    (args, ctx) -> {
                      effect(ctx.toolCallId());
                      Thread.sleep(args.path("ms").asLong());
                      return Map.of("slept", true);
                    })
                .build())
        .build();
  }

  @Test
  void startOptions_thatTheSessionWasNotStartedWith_areRefused_andNothingIsSent() {
    start(
        "{\"turns\":[{\"text\":\"first\"},{\"text\":\"second\"},{\"text\":\"third\"},"
            + "{\"text\":\"fourth\"},{\"text\":\"fifth\"}]}");
    assertThat(agents.send("opts-1", "hello").status()).isEqualTo(RunStatus.FINISHED);

    for (SendOptions ignored :
        new SendOptions[] {
          SendOptions.newBuilder().setAgent("other").build(),
          SendOptions.newBuilder().setMaxSteps(3).build(),
          SendOptions.newBuilder().setAgent("tester").setMaxSteps(3).build()
        }) {
      assertThatThrownBy(() -> agents.send("opts-1", "again", ignored))
          .isInstanceOf(SessionExistsException.class)
          .hasMessageStartingWith(
              "Session 'opts-1' already exists with agent 'tester' and the agent's maxSteps: ")
          .hasMessageContaining("would be ignored")
          .extracting(e -> ((SessionExistsException) e).sessionId())
          .isEqualTo("opts-1");
      assertThatThrownBy(() -> agents.sendAsync("opts-1", "again", ignored).join())
          .hasCauseInstanceOf(SessionExistsException.class);
    }
    // Nothing was sent: the next send is the session's second run, with the next scripted turn.
    RunResult next = agents.send("opts-1", "continue");
    assertThat(next.run()).isEqualTo(2);
    assertThat(next.text()).isEqualTo("second");
    // The agent the session runs is no reason to refuse: an app may name it on every send.
    SendOptions sameAgent = SendOptions.newBuilder().setAgent("tester").build();
    assertThat(agents.send("opts-1", "named", sameAgent).run()).isEqualTo(3);
    assertThat(agents.sendAsync("opts-1", "named", sameAgent).join().run()).isEqualTo(4);

    SendOptions threeSteps = SendOptions.newBuilder().setMaxSteps(3).build();
    assertThat(agents.send("opts-2", "new", threeSteps).status()).isEqualTo(RunStatus.FINISHED);
    assertThat(agents.status("opts-2").orElseThrow().maxSteps()).isEqualTo(3);
    assertThat(agents.send("opts-2", "same budget", threeSteps).run()).isEqualTo(2);
    assertThatThrownBy(
            () ->
                agents.send(
                    "opts-2", "other budget", SendOptions.newBuilder().setMaxSteps(4).build()))
        .isInstanceOf(SessionExistsException.class)
        .hasMessage(
            "Session 'opts-2' already exists with agent 'tester' and maxSteps 3: maxSteps 4 would"
                + " be ignored, as only the send that starts a session sets them. Leave them out to"
                + " continue it, or pick a new session id.");
  }

  /**
   * A send's first attempt can start the session and lose its answer (the server restarted under
   * it): the workflow waits for a first send it has not taken. The send made again with the same
   * start options continues that workflow; other options are still refused.
   */
  @Test
  void aSendMadeAgain_afterItsStartLanded_withoutItsFirstSend_continuesTheSession() {
    start("{\"turns\":[{\"text\":\"first\"},{\"text\":\"second\"}]}");
    for (String sessionId : new String[] {"landed-1", "landed-2"}) {
      AgentSessionWorkflow session =
          env.getWorkflowClient()
              .newWorkflowStub(
                  AgentSessionWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setWorkflowId(sessionId)
                      .setTaskQueue(TASK_QUEUE)
                      .build());
      WorkflowClient.start(session::run, new SessionStart(sessionId, "tester", 3));
    }
    assertThat(agents.status("landed-1")).as("no send taken yet").isEmpty();

    SendOptions other = SendOptions.newBuilder().setAgent("other").build();
    assertThatThrownBy(() -> agents.send("landed-1", "hello", other))
        .isInstanceOf(SessionExistsException.class)
        .hasMessageStartingWith(
            "Session 'landed-1' already exists with agent 'tester' and maxSteps 3");
    SendOptions same = SendOptions.newBuilder().setAgent("tester").setMaxSteps(3).build();
    RunResult sent = agents.send("landed-1", "hello", same);
    assertThat(sent.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(sent.run()).isEqualTo(1);
    assertThat(sent.text()).isEqualTo("first");
    RunResult sentAsync = agents.sendAsync("landed-2", "hello", same).join();
    assertThat(sentAsync.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(sentAsync.run()).isEqualTo(1);
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

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(outcome.approvalId()).isEqualTo(paused.approval().approvalId());
    assertThat(outcome.toolCallId()).isEqualTo("call_0_1");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("all done");
    assertThat(done.run()).isEqualTo(paused.run());
    assertThat(done.toolCalls().get(1).result().get("paid").asInt()).isEqualTo(500);
    assertThat(done.messages()).hasSize(done.messageCount());
    assertThat(effects).containsOnlyKeys("call_0_0", "call_0_1", "call_0_2");
    assertThat(projection.approvals(false))
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.status()).isEqualTo(ApprovalStatus.APPROVED);
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

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.REJECTED);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls())
        .extracting(ToolCallRecord::id)
        .containsExactly("call_0_0", "call_0_1", "call_0_2");
    assertThat(done.toolCalls().get(1).result().get("error").asText()).isEqualTo("rejected");
    assertThat(done.toolCalls().get(1).result().get("note").asText()).isEqualTo("too much");
    assertThat(effects).containsOnlyKeys("call_0_0", "call_0_2");
    assertThat(projection.approvals(false))
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row.status()).isEqualTo(ApprovalStatus.REJECTED);
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
        .isInstanceOfSatisfying(
            ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isTrue());
    assertThatThrownBy(() -> agents.approve("twice-1", "no-such-approval"))
        .isInstanceOfSatisfying(
            ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isFalse());
    assertThat(agents.awaitRun("twice-1").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(effects.get("call_0_1").get()).isEqualTo(1);
  }

  @Test
  void awaitRun_andDecisions_onAnUnknownSession_areSessionNotFound() throws Exception {
    start(GATED);

    assertThatThrownBy(() -> agents.awaitRun("nobody-1"))
        .isInstanceOf(SessionNotFoundException.class);
    assertThatThrownBy(() -> agents.approve("nobody-1", "a-1"))
        .isInstanceOf(SessionNotFoundException.class);
    assertThat(failureOf(agents.awaitRunAsync("nobody-1")))
        .isInstanceOf(SessionNotFoundException.class);
    assertThat(failureOf(agents.rejectAsync("nobody-1", "a-1", "no")))
        .isInstanceOf(SessionNotFoundException.class);
  }

  @Test
  void theAsyncMethods_answerWhatTheBlockingOnesDo() throws Exception {
    start(GATED);

    CompletableFuture<RunResult> sending = agents.sendAsync("async-1", "pay the bill");
    RunResult paused = sending.get(1, TimeUnit.MINUTES);
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.messages()).hasSize(paused.messageCount());
    assertThat(effects).containsOnlyKeys("call_0_0");

    // A paused run has settled: waiting for it answers the pause.
    RunResult stillPaused = agents.awaitRunAsync("async-1").get(1, TimeUnit.MINUTES);
    assertThat(stillPaused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(stillPaused.approval()).isEqualTo(paused.approval());

    DecisionOutcome outcome =
        agents.approveAsync("async-1", paused.approval().approvalId()).get(1, TimeUnit.MINUTES);
    RunResult done = agents.awaitRunAsync("async-1").get(1, TimeUnit.MINUTES);

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("all done");
    assertThat(done.messages()).hasSize(done.messageCount());
    assertThat(done).isEqualTo(agents.awaitRun("async-1"));
  }

  @Test
  void rejectAsync_andItsRefusal_completeTheFuture() throws Exception {
    start(GATED);
    RunResult paused = paused("async-rej-1");
    String approvalId = paused.approval().approvalId();

    DecisionOptions decision =
        DecisionOptions.newBuilder().setNote("no").setDecidedBy("bob").build();
    DecisionOutcome outcome =
        agents.rejectAsync("async-rej-1", approvalId, decision).get(1, TimeUnit.MINUTES);
    Throwable again = failureOf(agents.rejectAsync("async-rej-1", approvalId));

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.REJECTED);
    assertThat(again)
        .isInstanceOfSatisfying(
            ApprovalNotFoundException.class, e -> assertThat(e.alreadyDecided()).isTrue());
    RunResult done = agents.awaitRunAsync("async-rej-1").get(1, TimeUnit.MINUTES);
    assertThat(done.toolCalls().get(1).result().get("note").asText()).isEqualTo("no");
    assertThat(effects).doesNotContainKey("call_0_1");
  }

  @Test
  void sendAsync_andAwaitRunAsync_followTheSessionAcrossContinueAsNew() throws Exception {
    start(SLOW);
    // A session whose workflow runs are bounded to 25 events: the run below spans several.
    WorkflowClient client = env.getWorkflowClient();
    AgentSessionWorkflow session =
        client.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder().setWorkflowId("can-1").setTaskQueue(TASK_QUEUE).build());
    WorkflowClient.start(session::run, new SessionStart("can-1", null, null, null, null, 25));

    CompletableFuture<RunResult> sending = agents.sendAsync("can-1", "go");
    assertThat(sending).isNotDone();
    for (int i = 0; i < 300 && !effects.containsKey("call_0_0"); i++) {
      Thread.sleep(20);
    }
    CompletableFuture<RunResult> waiting = agents.awaitRunAsync("can-1");
    RunResult sent = sending.get(2, TimeUnit.MINUTES);
    RunResult awaited = waiting.get(2, TimeUnit.MINUTES);

    assertThat(closedRuns("can-1"))
        .as("workflow runs closed by continue-as-new")
        .isGreaterThanOrEqualTo(1);
    for (RunResult result : new RunResult[] {sent, awaited}) {
      assertThat(result.isContinued()).isFalse();
      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.text()).isEqualTo("end");
      assertThat(result.toolCalls()).hasSize(4);
      assertThat(result.messages()).hasSize(result.messageCount());
    }
    assertThat(awaited).isEqualTo(sent);
    effects.values().forEach(count -> assertThat(count.get()).isEqualTo(1));
  }

  @Test
  void aFailedFuture_carriesTheClientsException_itself() throws Exception {
    start(GATED);
    AtomicReference<Throwable> seen = new AtomicReference<>();

    agents
        .awaitRunAsync("nobody-2")
        .exceptionally(
            e -> {
              seen.set(e);
              return null;
            })
        .get(1, TimeUnit.MINUTES);

    assertThat(seen.get()).isInstanceOf(SessionNotFoundException.class);
  }

  /** What the future failed with, as {@code get} reports it. */
  private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
    try {
      future.get(1, TimeUnit.MINUTES);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("the future did not fail");
  }

  private long closedRuns(String sessionId) {
    return env
        .getWorkflowServiceStubs()
        .blockingStub()
        .listClosedWorkflowExecutions(
            ListClosedWorkflowExecutionsRequest.newBuilder().setNamespace("default").build())
        .getExecutionsList()
        .stream()
        .filter(e -> e.getExecution().getWorkflowId().equals(sessionId))
        .count();
  }
}
