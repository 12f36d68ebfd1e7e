package io.durableagents.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.store.internal.ProjectionRebuilder;
import io.durableagents.testing.ModelTurnInputs;
import io.durableagents.testing.PluginTestEnvironment;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sessions run on the real plugin (test server, SQLite projection); their workflow histories are
 * then replayed into fresh stores, which must hold exactly the live rows.
 */
class ProjectionRebuilderTest {
  private static final String TASK_QUEUE = "rebuild-test";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT =
      "{'turns':["
          + "{'text':'adding','toolCalls':[{'name':'add','arguments':{'a':2,'b':3}},"
          + "{'name':'add','arguments':{'a':5,'b':8}}],'usage':{'inputTokens':10,'outputTokens':3}},"
          + "{'text':'paying','toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
          + "{'text':'all done'},"
          + "{'text':'second answer'},{'text':'third answer'},{'text':'fourth answer'}]}";

  @TempDir Path dir;

  private CheckpointStore live;
  private TestWorkflowEnvironment env;
  private WorkflowClient client;
  private final Map<String, Long> notified = new ConcurrentHashMap<>();

  @BeforeEach
  void start() {
    live = CheckpointStore.of(AgentStores.open(liveUrl()));
    Agent agent = agent("rebuilder", Execution.ACTIVITY);
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent)
                .addAgent(agent("rebuilder-local", Execution.LOCAL_ACTIVITY))
                .setModelProvider(ScriptedModelProvider.fromJson(SCRIPT.replace('\'', '"')))
                .setStore(live)
                .build());
    env = PluginTestEnvironment.start(plugin, TASK_QUEUE);
    client = env.getWorkflowClient();
  }

  /** The test agent, its model turns and tools run in {@code mode}. */
  private Agent agent(String name, Execution mode) {
    return Agent.newBuilder(name)
        .setModel("scripted")
        .setModelExecution(mode)
        .setInstructions("test agent")
        .setApprovalTimeout(Duration.ofHours(1))
        .setApprovalNotifier(
            (sessionId, agent, approval) ->
                notified.put(approval.approvalId(), System.currentTimeMillis()))
        .setTools(
            Tool.newBuilder("add")
                .setExecution(mode)
                .setDescription("Adds two integers.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
                        + "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\",\"b\"]}")
                .setHandler(
                    (args, ctx) -> {
                      long sum = args.get("a").asLong() + args.get("b").asLong();
                      ctx.businessState().update(JSON.createObjectNode().put("lastSum", sum));
                      return Map.of("sum", sum);
                    })
                .build(),
            Tool.newBuilder("pay")
                .setExecution(mode)
                .setDescription("Pays; always needs approval.")
                .setInputSchema("{\"type\":\"object\"}")
                .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                .setHandler((args, ctx) -> Map.of("paid", args.path("amount").asInt()))
                .build())
        .build();
  }

  @AfterEach
  void stop() {
    if (env != null) {
      env.close();
    }
    if (live != null) {
      live.close();
    }
  }

  private String liveUrl() {
    return "jdbc:sqlite:" + dir.resolve("live.db");
  }

  /**
   * In both modes: a model turn holds its entries and a later write restates them, which a rebuild
   * applies twice, in history order, to the same rows.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void aToolLoopWithAnApproval_rebuildsIntoAFreshStoreExactlyAsLive(Execution mode) {
    String session = "rebuild-1-" + mode;
    String agent = mode == Execution.ACTIVITY ? "rebuilder" : "rebuilder-local";
    RunResult paused = send(session, "add and pay", new SessionStart(session, agent, null));
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    client
        .newWorkflowStub(AgentSessionWorkflow.class, session)
        .approve(new Decision(paused.approval().approvalId(), true, "ok", "alice"));
    RunResult done = attach(session);
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(send(session, "and again", null).status()).isEqualTo(RunStatus.FINISHED);

    List<WorkflowExecutionHistory> runs = ProjectionRebuilder.fetchRuns(client, session);
    // The turn after the two additions holds their entries; the pause then writes them, restated.
    assertThat(heldTurns(runs)).as("model turns that held their entries").isEqualTo(1);
    ProjectionRebuilder rebuilder = ProjectionRebuilder.newInstance();
    List<CheckpointSave> saves = rebuilder.saves(runs);
    assertThat(saves).isNotEmpty().allSatisfy(s -> assertThat(s.sessionId()).isEqualTo(session));
    assertThat(saves.get(0).firstSeq()).isZero();
    assertThat(rebuilder.notifications(runs)).containsOnlyKeys(paused.approval().approvalId());

    String freshUrl = "jdbc:sqlite:" + dir.resolve("fresh.db");
    ProjectionRebuilder.Result result;
    try (CheckpointStore fresh = CheckpointStore.of(AgentStores.open(freshUrl))) {
      result = rebuilder.rebuild(session, runs, fresh);
    }

    ProjectionTables expected = ProjectionTables.read(liveUrl(), session);
    ProjectionTables rebuilt = ProjectionTables.read(freshUrl, session);
    assertThat(rebuilt).isEqualTo(expected);
    assertThat(expected.messages()).hasSize(done.messageCount() + 2);
    // business_state (column 7) is rebuilt too: the adds left their last sum in it.
    assertThat(expected.checkpoints())
        .last()
        .satisfies(row -> assertThat(row.get(7)).isEqualTo("{\"lastSum\":13}"));
    assertThat(expected.approvals())
        .singleElement()
        .satisfies(row -> assertThat(row.get(6)).isEqualTo(ApprovalStatus.APPROVED.value()));
    assertThat(expected.approvals().get(0).get(12)).isNotEqualTo(0L); // notified_at
    // The step records and the run's times come back from the history as they were written.
    assertThat(expected.steps()).extracting(row -> row.get(1)).contains("model", "tool");
    assertThat(expected.runs()).isNotEmpty();
    assertThat(result.saves()).isEqualTo(saves.size());
    assertThat(result.messages()).isEqualTo(expected.messages().size());
    assertThat(result.historyEntries()).isEqualTo(expected.checkpoints().size());
    assertThat(result.approvalsNotified()).isEqualTo(1);
  }

  @Test
  void aDamagedLiveProjection_isRepairedInPlace() {
    String session = "rebuild-2";
    RunResult paused = send(session, "add and pay", null);
    client
        .newWorkflowStub(AgentSessionWorkflow.class, session)
        .approve(new Decision(paused.approval().approvalId(), false, "no", "bob"));
    assertThat(attach(session).status()).isEqualTo(RunStatus.FINISHED);
    ProjectionTables before = ProjectionTables.read(liveUrl(), session);

    live.delete(session, false);
    assertThat(live.session(session)).isEmpty();
    ProjectionRebuilder.newInstance()
        .rebuild(session, ProjectionRebuilder.fetchRuns(client, session), live);

    assertThat(ProjectionTables.read(liveUrl(), session)).isEqualTo(before);
    // The session goes on from the repaired projection.
    assertThat(send(session, "more", null).status()).isEqualTo(RunStatus.FINISHED);
  }

  @Test
  void aSessionThatContinuedAsNew_isRebuiltFromEveryRun() throws Exception {
    String session = "rebuild-3";
    // A tiny event bound: the session continues as new after (nearly) every run.
    SessionStart start =
        JSON.readValue(
            "{\"sessionId\":\"" + session + "\",\"continueAfterEvents\":20}", SessionStart.class);
    RunResult paused = followContinued(session, send(session, "add and pay", start));
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    // The paused run is due to continue as new at once (the tiny bound), but it hands over only
    // once its notifier's result is recorded (change id notified-before-handover): the result is
    // in the history even when the run continued as new. Deciding after it also keeps the run's
    // end from handing over while the notifier still runs.
    await("the notification of " + session + " in its history")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                ProjectionRebuilder.newInstance()
                    .notifications(ProjectionRebuilder.fetchRuns(client, session))
                    .containsKey(paused.approval().approvalId()));
    // The paused run may hand over to the next one (continue-as-new) as the decision arrives.
    acrossHandover(
        () ->
            client
                .newWorkflowStub(AgentSessionWorkflow.class, session)
                .approve(new Decision(paused.approval().approvalId(), true, null, "carol")));
    followContinued(session, acrossHandover(() -> attach(session)));
    for (String input : List.of("two", "three", "four")) {
      assertThat(followContinued(session, send(session, input, start)).status())
          .isEqualTo(RunStatus.FINISHED);
    }
    awaitSettled(session, 8);

    List<WorkflowExecutionHistory> runs = ProjectionRebuilder.fetchRuns(client, session);
    assertThat(runs).hasSizeGreaterThan(1);
    // The workflow run that paused waited for its notifier, then continued as new: the golden
    // history of that change (copied into the workflows module's histories).
    WorkflowExecutionHistory pausedRun =
        runs.stream()
            .filter(run -> recordsChangeId(run, "notified-before-handover"))
            .findFirst()
            .orElseThrow();
    assertThat(pausedRun.getLastEvent().getEventType())
        .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    long notifierScheduled =
        pausedRun.getEvents().stream()
            .filter(event -> event.hasActivityTaskScheduledEventAttributes())
            .filter(
                event ->
                    event
                        .getActivityTaskScheduledEventAttributes()
                        .getActivityType()
                        .getName()
                        .equals("agents.NotifyApproval"))
            .findFirst()
            .orElseThrow()
            .getEventId();
    assertThat(pausedRun.getEvents())
        .as("the notifier's result is in the run that continued as new")
        .anyMatch(
            event ->
                event.hasActivityTaskCompletedEventAttributes()
                    && event.getActivityTaskCompletedEventAttributes().getScheduledEventId()
                        == notifierScheduled);
    Path golden = Path.of("target", "histories", "approval-handover-notified-before-handover.json");
    Files.createDirectories(golden.getParent());
    Files.writeString(golden, pausedRun.toJson(true));
    String freshUrl = "jdbc:sqlite:" + dir.resolve("fresh-can.db");
    try (CheckpointStore fresh = CheckpointStore.of(AgentStores.open(freshUrl))) {
      ProjectionRebuilder.newInstance().rebuild(session, runs, fresh);
    }
    assertThat(ProjectionTables.read(freshUrl, session))
        .isEqualTo(ProjectionTables.read(liveUrl(), session));
  }

  /** Whether {@code run} has a version marker of {@code changeId}. */
  private static boolean recordsChangeId(WorkflowExecutionHistory run, String changeId) {
    return run.getEvents().stream()
        .filter(event -> event.hasMarkerRecordedEventAttributes())
        .map(event -> event.getMarkerRecordedEventAttributes())
        .filter(marker -> marker.getMarkerName().equals("Version"))
        .map(marker -> marker.getDetailsMap().get("changeId"))
        .anyMatch(
            payloads ->
                payloads != null
                    && payloads.getPayloadsCount() > 0
                    && payloads.getPayloads(0).getData().toStringUtf8().contains(changeId));
  }

  /**
   * How many model turns of {@code runs} held their saves (local activity markers' or activities'
   * inputs).
   */
  private static long heldTurns(List<WorkflowExecutionHistory> runs) {
    return runs.stream()
        .flatMap(run -> run.getEvents().stream())
        .map(ModelTurnInputs::inputOf)
        .filter(input -> input != null && input.contains("\"kind\":\"hold\""))
        .count();
  }

  /** A result the session answered with while it continued as new: attach to the next run. */
  private RunResult followContinued(String session, RunResult result) {
    RunResult current = result;
    for (int i = 0;
        i < 20
            && !RunStatus.settled(current.status())
            && !RunStatus.AWAITING_APPROVAL.equals(current.status());
        i++) {
      current = acrossHandover(() -> attach(session));
    }
    return current;
  }

  /** Waits until the projection shows a settled session with at least {@code messages}. */
  private void awaitSettled(String session, int messages) {
    await(
            "session %s settled with %d messages or more in the projection"
                .formatted(session, messages))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(50))
        .pollDelay(Duration.ZERO)
        .until(
            () -> live.session(session),
            row ->
                row.isPresent()
                    && RunStatus.settled(row.get().status())
                    && row.get().messageCount() >= messages);
  }

  /**
   * Calls {@code update} again when it reached a run that was just continuing as new: the test
   * server is not atomic there and answers NOT_FOUND (temporalio/sdk-java#1538), where a real
   * server has the SDK retry the update on the new run.
   */
  private static <T> T acrossHandover(java.util.function.Supplier<T> update) {
    return await("an update that reaches the run after the hand-over")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .pollDelay(Duration.ZERO)
        .pollInSameThread() // an update that runs long is not abandoned, nor sent twice at once
        .ignoreExceptionsInstanceOf(io.temporal.client.WorkflowNotFoundException.class)
        .until(update::get, answer -> true);
  }

  private RunResult send(String sessionId, String input, SessionStart start) {
    return SessionUpdates.sendWithStart(
        client,
        TASK_QUEUE,
        new SendRequest(input),
        start != null ? start : new SessionStart(sessionId, null, null));
  }

  private RunResult attach(String sessionId) {
    return client.newWorkflowStub(AgentSessionWorkflow.class, sessionId).send(new SendRequest(""));
  }
}
