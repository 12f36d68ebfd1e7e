package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.durableagents.agent.Agent;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionRow;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.AgentTestEnvironment;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sessions on the in-memory Temporal of {@link AgentTestEnvironment} for the console's tests: two
 * agents whose one tool, {@code refund}, waits for a human decision, played by a scripted model
 * (turn 0 calls the tool, turn 1 answers), and consoles started on free ports over them.
 */
final class ConsoleFixture implements AutoCloseable {
  static final String BILLING = "billing";
  static final String SUPPORT = "support";
  static final String SCRIPT =
      """
      {"turns": [
        {"toolCalls": [{"name": "refund", "arguments": {"orderId": "A-17", "amount": 5}}]},
        {"text": "Refunded 5."}
      ]}
      """;

  private final AgentTestEnvironment env;
  private final ProjectionReader projection;
  private final List<AgentConsole> consoles = new ArrayList<>();
  private final List<WorkflowServiceStubs> services = new ArrayList<>();

  private ConsoleFixture(AgentTestEnvironment env) {
    this.env = env;
    this.projection = ProjectionReader.open(env.projectionUrl());
  }

  static ConsoleFixture start() {
    // Wall clock: with time skipping, a client's wait could let the pending approvals expire.
    return new ConsoleFixture(
        AgentTestEnvironment.newBuilder()
            .addAgent(agent(BILLING))
            .addAgent(agent(SUPPORT))
            .setScript(SCRIPT)
            .setTimeSkipping(false)
            .start());
  }

  private static Agent agent(String name) {
    return Agent.newBuilder(name)
        .setModel("scripted")
        .setInstructions("You refund orders with the refund tool.")
        .setTools(
            Tool.newBuilder("refund")
                .setDescription("Refunds an order.")
                .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"orderId\":{\"type\":\"string\"},"
                        + "\"amount\":{\"type\":\"integer\"}},\"required\":[\"orderId\",\"amount\"]}")
                .setHandler((args, ctx) -> Map.of("refunded", args.get("amount").asInt()))
                .build())
        .build();
  }

  AgentClient client() {
    return env.client();
  }

  ProjectionReader projection() {
    return projection;
  }

  /** A console on a free loopback port, closed with the fixture. */
  AgentConsole console(ConsoleAuth auth) {
    return console(ConsoleOptions.newBuilder().setAuthentication(auth));
  }

  /** A console on a free port, with {@code options}. */
  AgentConsole console(ConsoleOptions.Builder options) {
    return console(env.client(), options);
  }

  /** A console over {@code agents} on a free port, with {@code options}. */
  AgentConsole console(AgentClient agents, ConsoleOptions.Builder options) {
    AgentConsole console = AgentConsole.start(agents, projection, options.setPort(0).build());
    consoles.add(console);
    return console;
  }

  /**
   * A client of the same sessions whose updates Temporal refuses as while the sessions recover from
   * a worker failure ({@link FailedTaskRefusal}); it retries them for {@code recoveryTimeout}.
   */
  AgentClient recoveringClient(Duration recoveryTimeout) {
    TestWorkflowEnvironment temporal = env.workflowEnvironment();
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder()
                .setChannel(temporal.getWorkflowServiceStubs().getRawChannel())
                .setGrpcClientInterceptors(List.of(new FailedTaskRefusal()))
                .build());
    services.add(service);
    WorkflowClient client =
        WorkflowClient.newInstance(
            service,
            WorkflowClientOptions.newBuilder().setNamespace(temporal.getNamespace()).build());
    return AgentClient.newInstance(
        client,
        AgentClientOptions.newBuilder()
            .setTaskQueue(env.taskQueue())
            .setProjection(projection)
            .setRecoveryTimeout(recoveryTimeout)
            .build());
  }

  /**
   * Starts {@code sessionId} of {@code agent} up to its pending refund; returns the approval id.
   */
  String awaitingApproval(String sessionId, String agent) {
    RunResult result =
        env.client()
            .send(sessionId, "Refund order A-17", SendOptions.newBuilder().setAgent(agent).build());
    assertThat(result.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    String approvalId = result.approval().approvalId();
    // The projection is what the console reads: wait until it shows the pending approval.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> pendingApprovalIds(sessionId).contains(approvalId));
    return approvalId;
  }

  String awaitingApproval(String sessionId) {
    return awaitingApproval(sessionId, BILLING);
  }

  /** A session whose refund {@code alice} approved and whose run then finished. */
  String finished(String sessionId) {
    String approvalId = awaitingApproval(sessionId);
    env.client()
        .approve(
            sessionId,
            approvalId,
            DecisionOptions.newBuilder().setDecidedBy("alice").setNote("looks right").build());
    assertThat(env.client().awaitRun(sessionId).status()).isEqualTo(RunStatus.FINISHED);
    awaitStatus(sessionId, RunStatus.FINISHED);
    decided(sessionId, approvalId);
    return approvalId;
  }

  void awaitStatus(String sessionId, RunStatus status) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> projection.session(sessionId).map(SessionRow::status).orElse(null) == status);
  }

  List<String> pendingApprovalIds(String sessionId) {
    return projection.approvals(sessionId, true).stream().map(ApprovalRow::approvalId).toList();
  }

  ApprovalRow approval(String sessionId, String approvalId) {
    return projection.approvals(sessionId, false).stream()
        .filter(row -> row.approvalId().equals(approvalId))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no approval " + approvalId + " of " + sessionId));
  }

  /**
   * The approval once the projection shows it decided (it records the decision after the update).
   */
  ApprovalRow decided(String sessionId, String approvalId) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !approval(sessionId, approvalId).isPending());
    return approval(sessionId, approvalId);
  }

  /** What a refusal must leave as it was: status, steps, messages and pending approvals. */
  record SessionState(RunStatus status, int lastStep, int messageCount, List<String> pending) {}

  SessionState state(String sessionId) {
    SessionRow row =
        projection
            .session(sessionId)
            .orElseThrow(() -> new AssertionError("no session " + sessionId));
    return new SessionState(
        row.status(), row.lastStep(), row.messageCount(), pendingApprovalIds(sessionId));
  }

  @Override
  public void close() {
    try {
      consoles.forEach(AgentConsole::close);
      services.forEach(WorkflowServiceStubs::shutdownNow);
    } finally {
      try {
        projection.close();
      } finally {
        env.close();
      }
    }
  }
}
