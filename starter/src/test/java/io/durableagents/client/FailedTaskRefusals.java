package io.durableagents.client;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.temporal.api.workflowservice.v1.ExecuteMultiOperationRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Answers chosen Temporal calls of a client as a real server answers them while the session's
 * workflow task is in a failed state ({@code FAILED_PRECONDITION}, observed on the dev server):
 * refused before they reach the server, or, to play an answer lost after the server applied the
 * request, passed on and then answered so. Records each call and the update id it carried.
 */
final class FailedTaskRefusals implements ClientInterceptor {
  static final String UPDATE =
      "temporal.api.workflowservice.v1.WorkflowService/UpdateWorkflowExecution";
  static final String UPDATE_WITH_START =
      "temporal.api.workflowservice.v1.WorkflowService/ExecuteMultiOperation";
  static final String QUERY = "temporal.api.workflowservice.v1.WorkflowService/QueryWorkflow";
  static final String SIGNAL =
      "temporal.api.workflowservice.v1.WorkflowService/SignalWorkflowExecution";

  static final Status UPDATE_REFUSAL =
      Status.FAILED_PRECONDITION.withDescription(
          "Unable to perform workflow execution update due to Workflow Task in failed state.");
  static final Status QUERY_REFUSAL =
      Status.FAILED_PRECONDITION.withDescription(
          "Unable to query workflow due to Workflow Task in failed state.");

  /** One call: its method, the update id it carried (null: none), and whether it was refused. */
  record Call(String method, String updateId, boolean refused) {}

  private final Map<String, AtomicInteger> refusals = new ConcurrentHashMap<>();
  private final Map<String, Status> refusalStatus = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> lostAnswers = new ConcurrentHashMap<>();
  private final List<Call> calls = new ArrayList<>();
  private volatile Runnable onRefusal = () -> {};

  /** Refuses the next {@code times} calls of {@code method} with {@code status}. */
  FailedTaskRefusals refuse(String method, int times, Status status) {
    refusals.put(method, new AtomicInteger(times));
    refusalStatus.put(method, status);
    return this;
  }

  FailedTaskRefusals refuse(String method, int times) {
    return refuse(method, times, method.equals(QUERY) ? QUERY_REFUSAL : UPDATE_REFUSAL);
  }

  /** Passes the next {@code times} calls of {@code method} on, and answers each with a refusal. */
  FailedTaskRefusals loseAnswers(String method, int times) {
    lostAnswers.put(method, new AtomicInteger(times));
    return this;
  }

  /** Runs {@code action} before each refusal is answered, and waits for it. */
  FailedTaskRefusals onRefusal(Runnable action) {
    onRefusal = action;
    return this;
  }

  /** The calls of {@code method} so far. */
  synchronized List<Call> calls(String method) {
    return calls.stream().filter(call -> call.method().equals(method)).toList();
  }

  private synchronized void record(String method, Object request, boolean refused) {
    calls.add(new Call(method, updateId(request), refused));
  }

  private static String updateId(Object request) {
    if (request instanceof UpdateWorkflowExecutionRequest update) {
      return update.getRequest().getMeta().getUpdateId();
    }
    if (request instanceof ExecuteMultiOperationRequest multi) {
      return multi.getOperations(1).getUpdateWorkflow().getRequest().getMeta().getUpdateId();
    }
    return null;
  }

  private static boolean take(Map<String, AtomicInteger> counts, String method) {
    AtomicInteger left = counts.get(method);
    return left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  @Override
  public <Q, A> ClientCall<Q, A> interceptCall(
      MethodDescriptor<Q, A> method, CallOptions callOptions, Channel next) {
    String name = method.getFullMethodName();
    if (take(refusals, name)) {
      return new Refused<>(name, refusalStatus.get(name));
    }
    boolean loseAnswer = take(lostAnswers, name);
    return new ForwardingClientCall.SimpleForwardingClientCall<>(
        next.newCall(method, callOptions)) {
      @Override
      public void start(Listener<A> listener, Metadata headers) {
        if (!loseAnswer) {
          super.start(listener, headers);
          return;
        }
        super.start(
            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
              @Override
              public void onMessage(A message) {
                // Lost on the way back.
              }

              @Override
              public void onClose(Status status, Metadata trailers) {
                super.onClose(status.isOk() ? UPDATE_REFUSAL : status, trailers);
              }
            },
            headers);
      }

      @Override
      public void sendMessage(Q message) {
        record(name, message, loseAnswer);
        super.sendMessage(message);
      }
    };
  }

  /** A call the "server" refuses: it never leaves the client. */
  private final class Refused<Q, A> extends ClientCall<Q, A> {
    private final String method;
    private final Status status;
    private Listener<A> listener;

    Refused(String method, Status status) {
      this.method = method;
      this.status = status;
    }

    @Override
    public void start(Listener<A> listener, Metadata headers) {
      this.listener = listener;
    }

    @Override
    public void request(int numMessages) {}

    @Override
    public void cancel(String message, Throwable cause) {}

    @Override
    public void sendMessage(Q message) {
      record(method, message, true);
    }

    @Override
    public void halfClose() {
      // On another thread: the SDK keeps per-thread state of the call in progress.
      CompletableFuture.runAsync(onRefusal).join();
      listener.onClose(status, new Metadata());
    }
  }
}
