package io.durableagents.console;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Set;

/**
 * Refuses a client's updates (update-with-start included) as a real Temporal server refuses them
 * while the session's workflow task is in a failed state, a worker having been killed while running
 * it: {@code FAILED_PRECONDITION}, before they reach the server. Signals and reads pass, as there.
 */
final class FailedTaskRefusal implements ClientInterceptor {
  private static final Set<String> UPDATES =
      Set.of(
          "temporal.api.workflowservice.v1.WorkflowService/UpdateWorkflowExecution",
          "temporal.api.workflowservice.v1.WorkflowService/ExecuteMultiOperation");
  private static final Status REFUSAL =
      Status.FAILED_PRECONDITION.withDescription(
          "Unable to perform workflow execution update due to Workflow Task in failed state.");

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions callOptions, Channel next) {
    if (!UPDATES.contains(method.getFullMethodName())) {
      return next.newCall(method, callOptions);
    }
    return new ClientCall<>() {
      private Listener<A> listener;

      @Override
      public void start(Listener<A> listener, Metadata headers) {
        this.listener = listener;
      }

      @Override
      public void request(int numMessages) {}

      @Override
      public void cancel(String message, Throwable cause) {}

      @Override
      public void sendMessage(Q message) {}

      @Override
      public void halfClose() {
        listener.onClose(REFUSAL, new Metadata());
      }
    };
  }
}
