package io.durableagents.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.tools.ToolCancellation.Reason;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolCancellationTest {
  private final ToolCancellation cancellation = new ToolCancellation();
  private final List<String> ran = new ArrayList<>();

  @Test
  void callbacksRunOnce_inRegistrationOrder_andOnlyTheFirstReasonCounts() {
    cancellation.onCancel(() -> ran.add("first"));
    cancellation.onCancel(() -> ran.add("second"));

    assertThat(cancellation.cancel(Reason.RUN_CANCELLED)).isTrue();
    assertThat(cancellation.cancel(Reason.WORKER_SHUTDOWN)).isFalse();

    assertThat(ran).containsExactly("first", "second");
    assertThat(cancellation.isCancelled()).isTrue();
    assertThat(cancellation.reason()).isEqualTo(Reason.RUN_CANCELLED);
  }

  @Test
  void aClosedRegistration_doesNotRun() {
    ToolCancellation.Registration registration = cancellation.onCancel(() -> ran.add("closed"));
    cancellation.onCancel(() -> ran.add("kept"));

    registration.close();
    cancellation.cancel(Reason.TIMED_OUT);

    assertThat(ran).containsExactly("kept");
  }

  @Test
  void aCallbackRegisteredAfterTheCancel_runsAtOnce() {
    cancellation.cancel(Reason.TIMED_OUT);

    cancellation.onCancel(() -> ran.add("late"));

    assertThat(ran).containsExactly("late");
  }

  @Test
  void aThrowingCallback_doesNotStopTheOthers() {
    cancellation.onCancel(
        () -> {
          throw new IllegalStateException("broken client");
        });
    cancellation.onCancel(() -> ran.add("after"));

    cancellation.cancel(Reason.RUN_CANCELLED);

    assertThat(ran).containsExactly("after");
  }

  @Test
  void aContextBuiltWithoutOne_isNeverCancelled_andOneBuiltWithOneSharesIt() {
    assertThat(ToolContext.newBuilder().build().isCancelled()).isFalse();

    ToolContext context = ToolContext.newBuilder().setCancellation(cancellation).build();
    context.onCancel(() -> ran.add("via context"));
    cancellation.cancel(Reason.RUN_CANCELLED);

    assertThat(context.isCancelled()).isTrue();
    assertThat(context.toBuilder().build().cancellation()).isSameAs(cancellation);
    assertThat(ran).containsExactly("via context");
  }
}
