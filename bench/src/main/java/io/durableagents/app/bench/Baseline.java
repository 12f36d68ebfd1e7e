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
    String modelTurn(int step);

    String callTool(int step);

    /** Marks {@code probeId} in the bench's {@link ProbeClock}. */
    void probeStarted(String probeId);
  }

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
    @WorkflowMethod(name = "BenchBaselineSteps")
    int run(int steps);
  }

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
    @WorkflowMethod(name = "BenchBaselineLocalSteps")
    int run(int steps);
  }

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
    @WorkflowMethod(name = "BenchSignalProbe")
    void run(String probeId);

    @SignalMethod(name = "go")
    void go();

    @QueryMethod(name = "waiting")
    boolean waiting();
  }

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
