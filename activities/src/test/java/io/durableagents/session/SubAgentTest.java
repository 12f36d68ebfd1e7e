package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.DriftPolicy;
import io.durableagents.agent.Execution;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.projection.internal.ProjectionQueries;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.internal.ApprovalRecord;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Sub-agents: a call of one runs it as a child session, whose answer is the call's result, whose
 * approvals surface on the parent, and whose budget is what the parent's run has left.
 */
class SubAgentTest extends SessionKitTest {
  /** The parent (the kit's agent): hands the weather question to the sub-agent, then answers. */
  private static final String DELEGATES =
      "{'turns':[{'text':'asking','toolCalls':[{'name':'weather','arguments':"
          + "{'task':'Weather in Oslo?'}}],'usage':{'inputTokens':10,'outputTokens':5}},"
          + "{'text':'Oslo: rain, says the specialist','usage':{'inputTokens':10,'outputTokens':5}}]}";

  /** The sub-agent: looks the forecast up (a gated tool), then answers. */
  private static final String FORECASTS =
      "{'turns':[{'text':'looking','toolCalls':[{'name':'forecast','arguments':{'city':'Oslo'}}],"
          + "'usage':{'inputTokens':20,'outputTokens':10}},"
          + "{'text':'rain','usage':{'inputTokens':20,'outputTokens':10}}]}";

  private final AtomicInteger forecasts = new AtomicInteger();

  private Agent weather(ApprovalPolicy policy, String script) {
    return Agent.newBuilder("weather")
        .setModelProvider(Scripts.of(script))
        .setInstructions("You know the weather.")
        .setApprovalTimeout(Duration.ofHours(1))
        .setTools(
            Tool.newBuilder("forecast")
                .setDescription("The forecast of a city.")
                .setApprovalPolicy(policy)
                .setHandler(
                    (args, ctx) -> {
                      forecasts.incrementAndGet();
                      return Map.of("forecast", "rain");
                    })
                .build())
        .build();
  }

  private void start(UnaryOperator<Agent.Builder> parent) {
    kit = new SessionTestKit(dir, Scripts.of(DELEGATES), parent, WorkerFactoryOptions.newBuilder());
  }

  /** A kit whose agent hands the weather to {@link #weather} with {@code policy} on its tool. */
  private void startDelegating(ApprovalPolicy policy) {
    start(agent -> agent.addSubAgent(weather(policy, FORECASTS), "Answers weather questions."));
  }

  /**
   * A kit whose workers take no sticky queue: the test server never moves work off a stopped
   * worker's sticky queue (a real server does), and a redeployed worker must get every task.
   */
  private void startRedeployable(UnaryOperator<Agent.Builder> parent) {
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(DELEGATES),
            parent,
            WorkerFactoryOptions.newBuilder(),
            Execution.ACTIVITY,
            WorkerOptions.newBuilder().setStickyQueueScheduleToStartTimeout(Duration.ZERO).build());
  }

  private String childOf(String parentId) {
    List<StoredSession> children = subAgents(parentId);
    assertThat(children).hasSize(1);
    return children.get(0).sessionId();
  }

  /** The projection's read model on the kit's SQLite database. */
  private List<StoredSession> subAgents(String parentId) {
    return read(connection -> ProjectionQueries.portable().subAgents(connection, parentId));
  }

  private List<StoredSession> forks(String parentId) {
    return read(connection -> ProjectionQueries.portable().forks(connection, parentId));
  }

  private interface Read<T> {
    T apply(Connection connection) throws SQLException;
  }

  private <T> T read(Read<T> query) {
    try (Connection connection =
        DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("projection.db"))) {
      return query.apply(connection);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aCallRunsTheSubAgentAsAChildSession_itsAnswerIsTheResult_itsTokensCountForTheParent() {
    startDelegating(ApprovalPolicy.NEVER);

    RunResult done = kit.send("trip-1", "Weather in Oslo?");

    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("Oslo: rain, says the specialist");
    JsonNode result = done.toolCalls().get(0).result();
    assertThat(result.get("text").asText()).isEqualTo("rain");
    String childId = result.get("sessionId").asText();
    assertThat(childId).startsWith("trip-1:sub:").hasSize("trip-1:sub:".length() + 16);
    assertThat(forecasts).hasValue(1);
    // Two parent turns (30 tokens) and two of the child's (60): the run counts all four.
    assertThat(done.steps()).isEqualTo(4);
    assertThat(done.usage().total()).isEqualTo(90);

    StoredSession child = kit.store.session(childId).orElseThrow();
    assertThat(child.agent()).isEqualTo("weather");
    assertThat(child.parentSessionId()).isEqualTo("trip-1");
    assertThat(child.parentCallId()).isEqualTo("call_0_0");
    assertThat(child.closedAt()).as("a finished sub-agent session is closed").isNotNull();
    assertThat(childOf("trip-1")).isEqualTo(childId);
    List<Message> transcript = kit.store.readMessages(childId, child.messageCount());
    assertThat(transcript.get(0).text()).isEqualTo("Weather in Oslo?");
    assertThat(transcript.get(transcript.size() - 1).text()).isEqualTo("rain");
    assertThat(forks("trip-1")).as("a sub-agent session is no fork").isEmpty();
  }

  @Test
  void aSubAgentsApprovalSurfacesOnTheParent_andADecisionSentToTheParentReachesIt() {
    startDelegating(ApprovalPolicy.ALWAYS);

    RunResult paused = kit.send("trip-2", "Weather in Oslo?");

    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    String childId = childOf("trip-2");
    assertThat(paused.approval().sessionId()).isEqualTo(childId);
    assertThat(paused.approval().toolName()).isEqualTo("forecast");
    SessionStatus parent = kit.session("trip-2").status();
    assertThat(parent.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(parent.approval().approvalId()).isEqualTo(paused.approval().approvalId());
    assertThat(kit.store.approvals(childId, true))
        .extracting(a -> a.approval().approvalId())
        .containsExactly(paused.approval().approvalId());
    assertThat(forecasts).hasValue(0);
    // While it waits on its child, the parent is in the store: its session row, and the entry of
    // the turn that called the sub-agent (its history, a reset and the console find it).
    assertThat(kit.store.session("trip-2")).isPresent();
    assertThat(kit.store.history("trip-2", 0)).isNotEmpty();

    DecisionOutcome outcome =
        kit.session("trip-2")
            .approve(new Decision(paused.approval().approvalId(), true, "fine", "alice"));

    assertThat(outcome.outcome()).isEqualTo(ApprovalStatus.APPROVED);
    RunResult done = kit.attach("trip-2");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(0).result().get("text").asText()).isEqualTo("rain");
    assertThat(forecasts).hasValue(1);
    assertThat(kit.store.approvals(childId, false))
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.status()).isEqualTo(ApprovalStatus.APPROVED);
              assertThat(a.decidedBy()).isEqualTo("alice");
            });
    assertThat(kit.session("trip-2").status().approval()).isNull();
  }

  @Test
  void aDecisionSentToTheSubAgentSessionItself_clearsTheParentsWait() {
    startDelegating(ApprovalPolicy.ALWAYS);
    RunResult paused = kit.send("trip-3", "Weather in Oslo?");
    String childId = paused.approval().sessionId();

    kit.session(childId).decide(new Decision(paused.approval().approvalId(), false, "no", "bob"));

    // The child tells the parent once it took the decision: the parent's wait clears then.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> kit.session("trip-3").status().approval() == null);
    RunResult done = kit.attach("trip-3");
    assertThat(done.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.toolCalls().get(0).result().get("text").asText()).isEqualTo("rain");
    assertThat(forecasts).hasValue(0);
    assertThat(kit.session("trip-3").status().status()).isEqualTo(RunStatus.FINISHED);
  }

  @Test
  void cancellingTheParent_cancelsTheWaitingChild_andClosesItsApproval() {
    startDelegating(ApprovalPolicy.ALWAYS);
    RunResult paused = kit.send("trip-4", "Weather in Oslo?");
    String childId = paused.approval().sessionId();

    kit.session("trip-4").cancel("changed my mind");

    RunResult cancelled = kit.attach("trip-4");
    assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
    assertThat(cancelled.toolCalls().get(0).result().get("error").asText()).isEqualTo("cancelled");
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              StoredSession child = kit.store.session(childId).orElseThrow();
              assertThat(child.status()).isEqualTo(RunStatus.CANCELLED);
              assertThat(child.closedAt()).isNotNull();
            });
    assertThat(kit.store.approvals(childId, false))
        .extracting(ApprovalRecord::status)
        .containsExactly(ApprovalStatus.CANCELLED);
    assertThat(forecasts).hasValue(0);
  }

  @Test
  void theChildGetsWhatIsLeftOfTheParentsTokenBudget_atMost() {
    // The parent may spend 50 tokens; its first turn takes 15, so the child may take 35. A run
    // stops once it reached its budget: the child's two turns (60) pass it, its third does not
    // start; and the parent, at 75, stops before its own next turn.
    String threeTurns =
        "{'turns':["
            + "{'toolCalls':[{'name':'forecast','arguments':{}}],'usage':{'inputTokens':20,'outputTokens':10}},"
            + "{'toolCalls':[{'name':'forecast','arguments':{}}],'usage':{'inputTokens':20,'outputTokens':10}},"
            + "{'text':'rain','usage':{'inputTokens':20,'outputTokens':10}}]}";
    start(
        agent ->
            agent
                .setMaxTokens(50)
                .addSubAgent(
                    weather(ApprovalPolicy.NEVER, threeTurns), "Answers weather questions."));

    RunResult done = kit.send("trip-5", "Weather in Oslo?");

    JsonNode result = done.toolCalls().get(0).result();
    assertThat(result.get("finishReason").asText()).isEqualTo(FinishReason.MAX_TOKENS);
    assertThat(forecasts).hasValue(2);
    assertThat(kit.store.session(childOf("trip-5")).orElseThrow().usage().total()).isEqualTo(60);
    assertThat(done.finishReason()).isEqualTo(FinishReason.MAX_TOKENS);
    assertThat(done.usage().total()).isEqualTo(75);
  }

  @Test
  void
      aSubAgentSessionsStatus_showsTheStepBudgetItRunsWith_theSmallerOfItsAgentsAndTheParentsLeft() {
    // The parent may take 12 model turns and took 1 before its call: 11 are left. The sub-agent
    // declares 4, and its run takes the smaller.
    start(
        agent ->
            agent
                .setMaxSteps(12)
                .addSubAgent(
                    weather(ApprovalPolicy.ALWAYS, FORECASTS).toBuilder().setMaxSteps(4).build(),
                    "Answers weather questions."));
    RunResult paused = kit.send("trip-10", "Weather in Oslo?");
    String childId = paused.approval().sessionId();

    assertThat(kit.session(childId).status().maxSteps()).isEqualTo(4);
    assertThat(kit.session("trip-10").status().maxSteps())
        .as("the parent's runs take its agent's budget")
        .isNull();

    kit.session("trip-10")
        .approve(new Decision(paused.approval().approvalId(), true, null, "alice"));
    assertThat(kit.attach("trip-10").status()).isEqualTo(RunStatus.FINISHED);
    assertThat(kit.session(childId).status().maxSteps()).isEqualTo(4);
  }

  @Test
  void aChildsApprovalWait_doesNotCountAgainstTheParentsRunTimeout() {
    start(
        agent ->
            agent
                .setRunTimeout(Duration.ofMinutes(10))
                .addSubAgent(
                    weather(ApprovalPolicy.ALWAYS, FORECASTS), "Answers weather questions."));
    RunResult paused = kit.send("trip-9", "Weather in Oslo?");

    kit.env.sleep(Duration.ofMinutes(50));
    kit.session("trip-9")
        .approve(new Decision(paused.approval().approvalId(), true, null, "alice"));
    RunResult done = kit.attach("trip-9");

    assertThat(done.status()).as(done.toString()).isEqualTo(RunStatus.FINISHED);
    assertThat(done.text()).isEqualTo("Oslo: rain, says the specialist");
  }

  @Test
  void aForkOfTheParentAtTheEntryWhereTheChildRan_startsANewChildForTheFork() {
    startDelegating(ApprovalPolicy.NEVER);
    RunResult original = kit.send("trip-6", "Weather in Oslo?");
    String originalChild = original.toolCalls().get(0).result().get("sessionId").asText();

    // Entry 1 is the model turn that called the sub-agent, without its result yet.
    RunResult forked = kit.fork("trip-6", 1, null, "trip-6-fork");

    assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
    String forkChild = forked.toolCalls().get(0).result().get("sessionId").asText();
    assertThat(forkChild).startsWith("trip-6-fork:sub:").isNotEqualTo(originalChild);
    assertThat(childOf("trip-6-fork")).isEqualTo(forkChild);
    assertThat(childOf("trip-6")).as("the original keeps its own child").isEqualTo(originalChild);
    assertThat(forecasts).hasValue(2);
  }

  @Test
  void aRedeployThatChangesTheSubAgent_isDriftOfTheParentsRun() {
    startRedeployable(
        agent ->
            agent
                .setOnAgentDrift(DriftPolicy.ERROR)
                .addSubAgent(
                    weather(ApprovalPolicy.ALWAYS, FORECASTS), "Answers weather questions."));
    RunResult paused = kit.send("trip-7", "Weather in Oslo?");

    Agent changed =
        weather(ApprovalPolicy.ALWAYS, FORECASTS).toBuilder()
            .setInstructions("You know the weather, and you say so briefly.")
            .build();
    kit.redeploy(
        agent ->
            agent
                .setOnAgentDrift(DriftPolicy.ERROR)
                .addSubAgent(changed, "Answers weather questions."));
    kit.session("trip-7")
        .approve(new Decision(paused.approval().approvalId(), true, null, "alice"));
    RunResult done = kit.attach("trip-7");

    // The child went on under the definition its parent's run recorded (its own policy: warn);
    // the parent's next turn found its definition changed, and its policy is error.
    assertThat(done.toolCalls().get(0).result().get("text").asText()).isEqualTo("rain");
    assertThat(done.status()).isEqualTo(RunStatus.FAILED);
    assertThat(done.error().code()).isEqualTo("agent_drift");
    assertThat(done.error().message())
        .contains("tester")
        .contains("tools changed: weather (sub-agent weather changed)");
  }

  @Test
  void aForcedCloseOfTheParent_cancelsItsWaitingChild_andNeitherOutlivesIt() {
    startDelegating(ApprovalPolicy.ALWAYS);
    RunResult paused = kit.send("trip-8", "Weather in Oslo?");
    String childId = paused.approval().sessionId();

    SessionStatus closed = kit.session("trip-8").close(CloseRequest.close(true));

    assertThat(closed.lifecycle()).isEqualTo(SessionLifecycle.CLOSED);
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              StoredSession child = kit.store.session(childId).orElseThrow();
              assertThat(child.status()).isEqualTo(RunStatus.CANCELLED);
              assertThat(child.closedAt()).isNotNull();
            });
    assertThat(
            kit.client
                .fetchHistory(childId)
                .getLastEvent()
                .hasWorkflowExecutionCompletedEventAttributes())
        .isTrue();
    assertThat(forecasts).hasValue(0);
  }

  @Test
  void subAgentsNestThreeLevelsDeep_aFourthIsRefusedWithAnErrorResult() {
    String delegate =
        "{'turns':[{'text':'delegating','toolCalls':[{'name':'%s','arguments':{'task':'go'}}]},"
            + "{'text':'done at %s'}]}";
    Agent level4 =
        Agent.newBuilder("level4")
            .setModelProvider(Scripts.of("{'turns':[{'text':'deep'}]}"))
            .build();
    Agent level3 = nested("level3", delegate, level4);
    Agent level2 = nested("level2", delegate, level3);
    Agent level1 = nested("level1", delegate, level2);
    kit =
        new SessionTestKit(
            dir,
            Scripts.of(String.format(delegate, "level1", "root").replace('\'', '"')),
            agent -> agent.addSubAgent(level1, "Level one."),
            WorkerFactoryOptions.newBuilder());

    RunResult done = kit.send("deep-1", "go down");

    assertThat(done.text()).isEqualTo("done at root");
    String level1Id = childOf("deep-1");
    String level2Id = childOf(level1Id);
    String level3Id = childOf(level2Id);
    assertThat(subAgents(level3Id)).as("nothing started at depth 4").isEmpty();
    List<Message> level3Transcript =
        kit.store.readMessages(level3Id, kit.store.session(level3Id).orElseThrow().messageCount());
    JsonNode refused =
        level3Transcript.stream()
            .filter(m -> m.toolCallId() != null)
            .findFirst()
            .orElseThrow()
            .result();
    assertThat(refused.get("error").asText()).isEqualTo("sub_agent_refused");
    assertThat(refused.get("message").asText()).contains("depth limit").contains("level4");
  }

  private static Agent nested(String name, String delegate, Agent next) {
    return Agent.newBuilder(name)
        .setModelProvider(Scripts.of(String.format(delegate, next.name(), name).replace('\'', '"')))
        .addSubAgent(next, "The next level down.")
        .build();
  }
}
