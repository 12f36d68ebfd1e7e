package io.durableagents.app;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.temporal.api.workflowservice.v1.RespondWorkflowTaskCompletedRequest;
import io.temporal.api.workflowservice.v1.WorkflowServiceGrpc;

/**
 * Drops the sticky execution attributes of every completed workflow task the embedded server
 * receives, so that no workflow is ever bound to one worker's sticky queue.
 *
 * <p>A real server moves a workflow off a sticky queue whose worker stopped (on the SDK's {@code
 * ShutdownWorker}, or once the sticky schedule-to-start timeout passes). Temporal's Java test
 * server does neither: after a worker restart every session it had cached waited for it, a query
 * ({@code agents status}) failing with {@code DEADLINE_EXCEEDED} and the next send waiting
 * likewise. Without stickiness every workflow task goes to the task queue any worker polls, with
 * the whole history; the price is a replay per workflow task, fine for the development server.
 */
final class NoStickyExecution implements ServerInterceptor {
  private static final String COMPLETED =
      WorkflowServiceGrpc.getRespondWorkflowTaskCompletedMethod().getFullMethodName();

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
    ServerCall.Listener<Q> listener = next.startCall(call, headers);
    if (!COMPLETED.equals(call.getMethodDescriptor().getFullMethodName())) {
      return listener;
    }
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(Q message) {
        super.onMessage(withoutStickyAttributes(message));
      }
    };
  }

  // Q is RespondWorkflowTaskCompletedRequest: the method's request type, checked above.
  @SuppressWarnings("unchecked")
  private static <Q> Q withoutStickyAttributes(Q message) {
    RespondWorkflowTaskCompletedRequest request = (RespondWorkflowTaskCompletedRequest) message;
    return request.hasStickyAttributes()
        ? (Q) request.toBuilder().clearStickyAttributes().build()
        : message;
  }
}
