package io.durableagents.workflow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.activity.LeaseActivities;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.KeyLeases;
import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.durableagents.workflow.internal.wire.SubAgentApproval;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The lease workflow of one concurrency key on its own, with a stand-in session that gives each
 * grant back at once (the first once the queue is full): places and grants in arrival order, a
 * grant that finds no session goes to the next run, and the lease completes once idle.
 */
class ConcurrencyKeyWorkflowTest {
  private static final String QUEUE = "leases";
  private static final String KEY = "repo:durable agents/✓";

  private TestWorkflowEnvironment env;
  private WorkflowClient client;

  /**
   * Records the grants it gets (its status: {@code run} the number, {@code checkpointStep} the last
   * granted run, {@code messageCount} the grants out of order) and releases each at once.
   */
  public static class GrantRecorder implements AgentSessionWorkflow {
    private int grants;
    private int last;
    private int outOfOrder;

    @Override
    public RunResult run(SessionStart start) {
      Workflow.await(() -> false);
      return null;
    }

    @Override
    public void subAgentApproval(SubAgentApproval notice) {}

    /** The first grant is held until a {@code decide} signal: the queue fills up behind it. */
    private boolean releaseFirst;

    @Override
    public void leaseGranted(LeaseRequest grant) {
      if (grant.run() == 1) {
        Workflow.await(() -> releaseFirst);
      }
      grants++;
      if (grant.run() <= last) {
        outOfOrder++;
      }
      last = grant.run();
      RunLease.giveBack(grant);
    }

    @Override
    public SessionStatus status() {
      return SessionStatus.newBuilder()
          .setRun(grants)
          .setCheckpointStep(last)
          .setMessageCount(outOfOrder)
          .build();
    }

    @Override
    public RunResult send(SendRequest request) {
      return null;
    }

    @Override
    public void validateSend(SendRequest request) {}

    @Override
    public void decide(Decision decision) {
      releaseFirst = true;
    }

    @Override
    public DecisionOutcome approve(Decision decision) {
      return null;
    }

    @Override
    public void validateApprove(Decision decision) {}

    @Override
    public void cancel(String reason) {}

    @Override
    public ForkOutcome forkPrepared() {
      return null;
    }

    @Override
    public SessionStatus close(CloseRequest request) {
      return null;
    }

    @Override
    public void validateClose(CloseRequest request) {}
  }

  /** Every session is open. */
  static class OpenSessions implements LeaseActivities {
    @Override
    public int acquireLease(LeaseRequest request) {
      throw new UnsupportedOperationException("the test acquires itself");
    }

    @Override
    public boolean sessionOpen(String sessionId) {
      return true;
    }
  }

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        ConcurrencyKeyWorkflowImpl.class, GrantRecorder.class);
    worker.registerActivitiesImplementations(new OpenSessions());
    env.start();
    client = env.getWorkflowClient();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  /** What the session's acquire activity does: update-with-start of {@code acquire}. */
  private int acquire(String sessionId, int run) {
    ConcurrencyKeyWorkflow lease =
        client.newWorkflowStub(
            ConcurrencyKeyWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ConcurrencyKeyWorkflow.workflowId(KEY))
                .setTaskQueue(QUEUE)
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
    return WorkflowClient.executeUpdateWithStart(
        lease::acquire,
        new LeaseRequest(KEY, sessionId, run),
        UpdateOptions.newBuilder(Integer.class)
            .setUpdateName("acquire")
            .setWaitForStage(WorkflowUpdateStage.COMPLETED)
            .build(),
        new WithStartWorkflowOperation<>(lease::run, (KeyLeases) null));
  }

  private SessionStatus recorded() {
    return client.newWorkflowStub(AgentSessionWorkflow.class, "recorder").status();
  }

  private WorkflowExecutionStatus leaseStatus() {
    return client
        .newUntypedWorkflowStub(ConcurrencyKeyWorkflow.workflowId(KEY))
        .describe()
        .getStatus();
  }

  @Test
  void grantsInArrivalOrder_skipAMissingSession_andCompleteWhenIdle() throws Exception {
    WorkflowClient.start(
        client.newWorkflowStub(
                AgentSessionWorkflow.class,
                WorkflowOptions.newBuilder().setWorkflowId("recorder").setTaskQueue(QUEUE).build())
            ::run,
        new SessionStart("recorder", null, null));
    // Fewer than GRANTS_PER_RUN: the Java test server stalls a lease that continues as new while
    // grants and releases cross (refused completions, UnhandledCommand); ConcurrencyKeyLeaseIT
    // shows the real server take it.
    int grants = ConcurrencyKeyWorkflowImpl.GRANTS_PER_RUN - 10;

    assertThat(acquire("recorder", 1)).isZero();
    acquire("no-such-session", 1);
    for (int run = 2; run <= grants; run++) {
      assertThat(acquire("recorder", run)).as("place of run %s", run).isEqualTo(run);
    }
    // The Java test server stalls a lease that completes while an acquire races it (its completion
    // is refused, UnhandledCommand, and the update never delivered), so the queue is filled first.
    client.newWorkflowStub(AgentSessionWorkflow.class, "recorder").decide(null);

    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (recorded().run() < grants && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    SessionStatus recorded = recorded();
    assertThat(recorded.run()).as("grants").isEqualTo(grants);
    assertThat(recorded.checkpointStep()).as("last granted run").isEqualTo(grants);
    assertThat(recorded.messageCount()).as("grants out of arrival order").isZero();
    while (leaseStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertThat(leaseStatus())
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
  }
}
