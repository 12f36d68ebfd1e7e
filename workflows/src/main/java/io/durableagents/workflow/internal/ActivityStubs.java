package io.durableagents.workflow.internal;

import io.durableagents.session.Approval;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.ApprovalActivities;
import io.durableagents.workflow.internal.activity.ApprovalNotice;
import io.durableagents.workflow.internal.activity.CheckpointActivities;
import io.durableagents.workflow.internal.activity.ForkActivities;
import io.durableagents.workflow.internal.activity.LifecycleActivities;
import io.durableagents.workflow.internal.activity.ModelActivities;
import io.durableagents.workflow.internal.activity.ToolActivities;
import io.durableagents.workflow.internal.activity.ToolSpec;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Activity stubs with the options the session workflow uses. Options that depend on the agent come
 * from its recorded {@link AgentSpec}, never from worker configuration.
 */
final class ActivityStubs {

  /**
   * A model activity heartbeats while it works (its provider's stream, even while waiting for the
   * first byte): a dead worker's turn is retried after this, not after the whole start-to-close
   * timeout. With the default server and worker settings a session goes on within 30 s of a
   * SIGKILL: the attempt in flight times out at most 10 s after its last heartbeat, so after the
   * kill; its first retry waits 1 s (500 ms for a tool); the workflow task of its completion waits
   * at most 5 s (sticky schedule-to-start timeout) on the dead worker's sticky queue before the
   * normal queue gets it; a workflow task the dead worker had started times out after 10 s (the
   * workflow task timeout). Even added up, 10 + 1 + 5 + 10 = 26 s, plus the work run again.
   */
  static final Duration MODEL_HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A tool activity's worker heartbeats for it every second; same bound as {@link
   * #MODEL_HEARTBEAT_TIMEOUT}.
   */
  static final Duration TOOL_HEARTBEAT_TIMEOUT = Duration.ofSeconds(10);

  /** Failure types a model activity raises for errors that no retry can fix. */
  static final String[] MODEL_NON_RETRYABLE = {
    FailureTypes.UNKNOWN_AGENT,
    FailureTypes.MODEL_REQUEST_INVALID,
    FailureTypes.INCOMPLETE_RESPONSE,
    FailureTypes.MODEL_ERROR,
    FailureTypes.MODEL_RESPONSE_INVALID
  };

  /**
   * Checkpoint saves retry without a limit (with backoff up to a minute): while the store is down
   * the run waits, and when it is back the save lands; nothing is lost.
   */
  private static final ActivityOptions CHECKPOINT_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofMillis(200))
                  .setMaximumInterval(Duration.ofMinutes(1))
                  .setMaximumAttempts(0)
                  .build())
          .build();

  /**
   * The same retries as a regular save, without the server round trips. A local activity needs a
   * bound on its attempts to be retried at all (the SDK takes 0 without a schedule-to-close timeout
   * for "no retry policy"): {@link Integer#MAX_VALUE} is none in practice. Past the local retry
   * threshold the SDK waits between attempts with workflow timers; replay follows the recorded
   * markers, so the options do not change recorded commands.
   */
  private static final LocalActivityOptions LOCAL_CHECKPOINT_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder(CHECKPOINT_OPTIONS.getRetryOptions())
                  .setMaximumAttempts(Integer.MAX_VALUE)
                  .build())
          .build();

  /**
   * Resolving the agent is a lookup in the registry of the workflow's own worker: a local activity
   * needs no server round trip before the first model turn, and its marker records the definition
   * the run keeps. Recording it writes the store, so ResolveRun is retried like a local save and
   * waits out a store outage ({@code store_unavailable}); the activity gives up on any other
   * failure after a few attempts, and an unknown agent or a refused configuration fails at once.
   */
  private static final LocalActivityOptions LOCAL_AGENT_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder(LOCAL_CHECKPOINT_OPTIONS.getRetryOptions())
                  .setDoNotRetry(FailureTypes.UNKNOWN_AGENT)
                  .build())
          .build();

  private final AgentActivities localAgents =
      Workflow.newLocalActivityStub(AgentActivities.class, LOCAL_AGENT_OPTIONS);
  private final CheckpointActivities localCheckpoints =
      Workflow.newLocalActivityStub(CheckpointActivities.class, LOCAL_CHECKPOINT_OPTIONS);
  private final CheckpointActivities checkpoints =
      Workflow.newActivityStub(CheckpointActivities.class, CHECKPOINT_OPTIONS);

  /** A session's restore and close read and write the store: retried like a local save. */
  private final LifecycleActivities lifecycle =
      Workflow.newLocalActivityStub(LifecycleActivities.class, LOCAL_CHECKPOINT_OPTIONS);

  /**
   * A new workflow's store lookup (restore or reset) as a regular activity, retried like a save:
   * its answer is in the history before anything is written under the new execution (see {@link
   * ChangeIds#RECORDED_RESTORE}). One short transaction, so a killed worker's attempt is given up
   * after the bound of a heartbeating one ({@link #MODEL_HEARTBEAT_TIMEOUT}).
   */
  private final LifecycleActivities recordedLifecycle =
      Workflow.newActivityStub(
          LifecycleActivities.class,
          ActivityOptions.newBuilder(CHECKPOINT_OPTIONS)
              .setStartToCloseTimeout(MODEL_HEARTBEAT_TIMEOUT)
              .setSummary("session look-up in the store")
              .build());

  /** The notifier is retried until it accepts: a decision must not wait on a flaky inbox. */
  private static final ActivityOptions NOTIFY_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setMaximumInterval(Duration.ofMinutes(5))
                  .setMaximumAttempts(0)
                  .build())
          .build();

  /** Preparing a fork reads and writes the store: retried like a checkpoint save. */
  private final ForkActivities forks =
      Workflow.newActivityStub(
          ForkActivities.class,
          ActivityOptions.newBuilder(CHECKPOINT_OPTIONS)
              .setRetryOptions(
                  RetryOptions.newBuilder(CHECKPOINT_OPTIONS.getRetryOptions())
                      .setDoNotRetry(FailureTypes.CHECKPOINT_NOT_FOUND)
                      .build())
              .build());

  private final ApprovalActivities approvals =
      Workflow.newActivityStub(ApprovalActivities.class, NOTIFY_OPTIONS);
  private final Map<ToolSpec, ToolActivities> toolStubs = new HashMap<>();
  private ModelActivities model;
  private AgentSpec modelSpec;
  private int modelTurn;

  AgentActivities localAgents() {
    return localAgents;
  }

  /**
   * Starts the notifier without waiting for it; the approval wait does not depend on it, only the
   * wait's hand-over to a new workflow run does ({@code ToolBatch}).
   */
  Promise<Long> notifyLater(String sessionId, String agent, Approval approval) {
    return Async.function(
        approvals::notifyApproval, new ApprovalNotice(sessionId, agent, approval));
  }

  ForkActivities forks() {
    return forks;
  }

  LifecycleActivities lifecycle() {
    return lifecycle;
  }

  LifecycleActivities recordedLifecycle() {
    return recordedLifecycle;
  }

  CheckpointActivities checkpoints() {
    return checkpoints;
  }

  CheckpointActivities localCheckpoints() {
    return localCheckpoints;
  }

  /**
   * The model stub of turn {@code turn} (the checkpoint step it saves), summarised as such in the
   * UI.
   */
  ModelActivities model(AgentSpec spec, int turn) {
    if (model == null || !spec.equals(modelSpec) || turn != modelTurn) {
      RetryOptions retry =
          spec.modelRetry() != null
              ? spec.modelRetry().toOptions(MODEL_NON_RETRYABLE)
              : RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setMaximumInterval(Duration.ofSeconds(30))
                  .setMaximumAttempts(spec.modelMaxAttempts())
                  .setDoNotRetry(MODEL_NON_RETRYABLE)
                  .build();
      if (spec.localModel()) {
        model =
            Workflow.newLocalActivityStub(
                ModelActivities.class,
                LocalActivityOptions.newBuilder()
                    .setSummary(modelSummary(turn))
                    .setStartToCloseTimeout(Duration.ofMillis(spec.modelTimeoutMs()))
                    .setRetryOptions(local(retry))
                    .build());
      } else {
        model =
            Workflow.newActivityStub(
                ModelActivities.class,
                ActivityOptions.newBuilder()
                    .setSummary(modelSummary(turn))
                    .setTaskQueue(spec.modelTaskQueue())
                    .setStartToCloseTimeout(Duration.ofMillis(spec.modelTimeoutMs()))
                    .setHeartbeatTimeout(MODEL_HEARTBEAT_TIMEOUT)
                    .setRetryOptions(retry)
                    .build());
      }
      modelSpec = spec;
      modelTurn = turn;
    }
    return model;
  }

  /**
   * {@code retry} for a local activity: unlimited attempts (0) become {@link Integer#MAX_VALUE},
   * since the SDK does not retry a local activity at all with 0 and no schedule-to-close timeout.
   */
  private static RetryOptions local(RetryOptions retry) {
    return retry.getMaximumAttempts() > 0
        ? retry
        : RetryOptions.newBuilder(retry).setMaximumAttempts(Integer.MAX_VALUE).build();
  }

  /** What Temporal's UI shows of a model turn; never the prompt. */
  static String modelSummary(int turn) {
    return "model turn " + turn;
  }

  private static ActivityCancellationType toolCancellation() {
    return Workflow.getVersion(ChangeIds.TOOL_CANCEL_WAIT, Workflow.DEFAULT_VERSION, 1)
            == Workflow.DEFAULT_VERSION
        ? ActivityCancellationType.TRY_CANCEL
        : ActivityCancellationType.WAIT_CANCELLATION_COMPLETED;
  }

  /** What Temporal's UI shows of a tool call; never its arguments. */
  static String toolSummary(String toolName) {
    return "tool " + toolName;
  }

  /**
   * The stub of {@code tool}'s calls: its queue, timeout and retry options. A cancel of a regular
   * call waits for the activity to report how it ended (its handler learns of the cancel from the
   * heartbeat's answer); before {@link ChangeIds#TOOL_CANCEL_WAIT} it was abandoned at once. A
   * local call cannot be cancelled by the SDK at all: its worker watches for the cancel itself.
   */
  ToolActivities tool(ToolSpec tool) {
    return toolStubs.computeIfAbsent(
        tool,
        key -> {
          RetryOptions retry =
              tool.retry() != null
                  ? tool.retry().toOptions()
                  : RetryOptions.newBuilder()
                      .setInitialInterval(Duration.ofMillis(500))
                      .setMaximumInterval(Duration.ofSeconds(30))
                      .setMaximumAttempts(tool.maxAttempts())
                      .build();
          if (tool.local()) {
            return Workflow.newLocalActivityStub(
                ToolActivities.class,
                LocalActivityOptions.newBuilder()
                    .setSummary(toolSummary(tool.name()))
                    .setStartToCloseTimeout(Duration.ofMillis(tool.startToCloseTimeoutMs()))
                    .setRetryOptions(local(retry))
                    .build());
          }
          return Workflow.newActivityStub(
              ToolActivities.class,
              ActivityOptions.newBuilder()
                  .setSummary(toolSummary(tool.name()))
                  .setTaskQueue(tool.taskQueue())
                  .setStartToCloseTimeout(Duration.ofMillis(tool.startToCloseTimeoutMs()))
                  .setHeartbeatTimeout(TOOL_HEARTBEAT_TIMEOUT)
                  .setRetryOptions(retry)
                  .setCancellationType(toolCancellation())
                  .build());
        });
  }
}
