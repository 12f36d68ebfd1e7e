package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityOptions;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The embedded server, with its lock event log replaced, still runs timers and activities. */
class EmbeddedTemporalServerTest {

  @WorkflowInterface
  public interface Sleeper {
    @WorkflowMethod
    String run(int rounds);
  }

  @ActivityInterface
  public interface Echo {
    String echo(String text);
  }

  public static class SleeperImpl implements Sleeper {
    private final Echo echo =
        Workflow.newActivityStub(
            Echo.class,
            ActivityOptions.newBuilder().setStartToCloseTimeout(Duration.ofSeconds(10)).build());

    @Override
    public String run(int rounds) {
      String last = "";
      for (int i = 0; i < rounds; i++) {
        Workflow.sleep(Duration.ofMillis(1));
        last = echo.echo("round " + i);
      }
      return last;
    }
  }

  @Test
  void theLockEventLogIsReplaced_andTimersAndActivitiesStillRun() {
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0)) {
      assertThat(server.lockEventsDiscarded())
          .as("the temporal-testing version in use still has the lock event log this works around")
          .isTrue();
      WorkflowServiceStubs service =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
      try {
        WorkflowClient client = WorkflowClient.newInstance(service);
        WorkerFactory factory = WorkerFactory.newInstance(client);
        var worker = factory.newWorker("lock-events");
        worker.registerWorkflowImplementationTypes(SleeperImpl.class);
        worker.registerActivitiesImplementations((Echo) text -> text);
        factory.start();
        Sleeper sleeper =
            client.newWorkflowStub(
                Sleeper.class, WorkflowOptions.newBuilder().setTaskQueue("lock-events").build());
        assertThat(sleeper.run(20)).isEqualTo("round 19");
        factory.shutdownNow();
      } finally {
        service.shutdownNow();
      }
    }
  }
}
