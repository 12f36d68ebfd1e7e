package io.durableagents.app.bench;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.activity.LocalActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;

/**
 * The hand-written Temporal workflows the product is measured against: the least a workflow has to
 * do to run the same activities. Registered on the bench's worker next to the plugin.
 */
public final class Baseline {
  private Baseline() {}

  static final ActivityOptions OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(30))
          .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(3).build())
          .build();

  /** The same timeout and retries, for the local-activity baseline. */
  static final LocalActivityOptions LOCAL_OPTIONS =
      LocalActivityOptions.newBuilder()
          .setStartToCloseTimeout(OPTIONS.getStartToCloseTimeout())
          .setRetryOptions(OPTIONS.getRetryOptions())
          .build();

  /** A no-op "model" turn, a no-op "tool" call, and the probe of the signal figure. */
  @ActivityInterface(namePrefix = "bench.")
  public interface Activities {
    /** Stands in for model turn {@code step}; returns at once. */
    String modelTurn(int step);

    /** Stands in for the tool call of step {@code step}; returns at once. */
    String callTool(int step);

    /** Marks {@code probeId} in the bench's {@link ProbeClock}. */
    void probeStarted(String probeId);
  }

  /** The no-op activities, marking probes in the bench's clock. */
  public static final class ActivitiesImpl implements Activities {
    private final ProbeClock clock;

    ActivitiesImpl(ProbeClock clock) {
      this.clock = clock;
    }

    @Override
    public String modelTurn(int step) {
      return "ok";
    }

    @Override
    public String callTool(int step) {
      return "ok";
    }

    @Override
    public void probeStarted(String probeId) {
      clock.mark(probeId);
    }
  }

  /** {@code steps} times a model activity then a tool activity, then a final model activity. */
  @WorkflowInterface
  public interface Steps {
    /** Runs {@code steps} steps and returns their number. */
    @WorkflowMethod(name = "BenchBaselineSteps")
    int run(int steps);
  }

  /** {@link Steps} with regular activities. */
  public static final class StepsImpl implements Steps {
    private final Activities activities = Workflow.newActivityStub(Activities.class, OPTIONS);

    @Override
    public int run(int steps) {
      return runSteps(activities, steps);
    }
  }

  /**
   * The loop both step baselines run: a model call and a tool call per step, a final model call.
   */
  private static int runSteps(Activities activities, int steps) {
    for (int i = 0; i < steps; i++) {
      activities.modelTurn(i);
      activities.callTool(i);
    }
    activities.modelTurn(steps);
    return steps;
  }

  /**
   * {@link Steps} with both calls as local activities: the baseline of the plugin's local mode
   * (model turn and tool as {@code Execution.LOCAL_ACTIVITY}).
   */
  @WorkflowInterface
  public interface LocalSteps {
    /** Runs {@code steps} steps and returns their number. */
    @WorkflowMethod(name = "BenchBaselineLocalSteps")
    int run(int steps);
  }

  /** {@link LocalSteps} with local activities. */
  public static final class LocalStepsImpl implements LocalSteps {
    private final Activities activities =
        Workflow.newLocalActivityStub(Activities.class, LOCAL_OPTIONS);

    @Override
    public int run(int steps) {
      return runSteps(activities, steps);
    }
  }

  /** Waits for signal {@code go}, then schedules one activity that records when it starts. */
  @WorkflowInterface
  public interface SignalProbe {
    /** Waits for {@code go}, then runs the activity that marks {@code probeId}. */
    @WorkflowMethod(name = "BenchSignalProbe")
    void run(String probeId);

    /** Lets the waiting workflow go on to its probe activity. */
    @SignalMethod(name = "go")
    void go();

    /** Whether the workflow waits for {@code go}, so the bench sends it only then. */
    @QueryMethod(name = "waiting")
    boolean waiting();
  }

  /** {@link SignalProbe}: waits for {@code go}, then runs the probe activity. */
  public static final class SignalProbeImpl implements SignalProbe {
    private final Activities activities = Workflow.newActivityStub(Activities.class, OPTIONS);
    private boolean waiting;
    private boolean go;

    @Override
    public void run(String probeId) {
      waiting = true;
      Workflow.await(() -> go);
      waiting = false;
      activities.probeStarted(probeId);
    }

    @Override
    public void go() {
      go = true;
    }

    @Override
    public boolean waiting() {
      return waiting;
    }
  }
}
