package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionExistsException;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRecoveringException;
import io.durableagents.session.RunStatus;
import io.durableagents.session.SessionLifecycle;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.KeyLeases;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowQueryException;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateStage;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A session's conversation: sends (update-with-start of {@code send}), waits for runs, status and
 * cancel. Every answer that says the session continued as new is followed to its next run.
 */
public final class SessionCalls {
  /** The input of the {@code send} update that starts nothing and answers the run's result. */
  private static final SendRequest ATTACH = new SendRequest("");

  private final ClientCalls calls;

  /** Calls of sessions through {@code calls}. */
  public SessionCalls(ClientCalls calls) {
    this.calls = calls;
  }

  /** Sends {@code input}, or starts the session with it, and waits for the run to settle. */
  public RunResult send(String sessionId, String input, SendOptions sendOptions) {
    return sendWithStart(sessionId, textRequest(sessionId, input), sendOptions);
  }

  /** {@link #send} without holding the caller's thread. */
  public CompletableFuture<RunResult> sendAsync(
      String sessionId, String input, SendOptions sendOptions) {
    return sendWithStartAsync(sessionId, textRequest(sessionId, input), sendOptions);
  }

  /** Sends a trigger's run, or starts the session with it, and waits for the run to settle. */
  public RunResult sendTrigger(String sessionId, TriggerEnvelope trigger, SendOptions sendOptions) {
    return sendWithStart(sessionId, triggerRequest(sessionId, trigger), sendOptions);
  }

  /** {@link #sendTrigger} without holding the caller's thread. */
  public CompletableFuture<RunResult> sendTriggerAsync(
      String sessionId, TriggerEnvelope trigger, SendOptions sendOptions) {
    return sendWithStartAsync(sessionId, triggerRequest(sessionId, trigger), sendOptions);
  }

  /** Waits for the run in progress, or answers the last run's result; sends nothing. */
  public RunResult awaitRun(String sessionId) {
    SessionIds.requireValid(sessionId);
    AgentSessionWorkflow stub = calls.session(sessionId);
    RunResult result;
    do {
      try {
        // Empty input starts nothing: the session answers with the run in progress, once it
        // settles.
        result = calls.call(sessionId, () -> stub.send(ATTACH));
      } catch (RuntimeException e) {
        RuntimeException failure = waitFailure(sessionId, e);
        result = lastResultIfClosed(sessionId, failure).orElseThrow(() -> failure);
      }
      // The session continued as new while we waited: attach to its next workflow run.
    } while (result != null && result.isContinued());
    return withMessages(result);
  }

  /** {@link #awaitRun} without holding the caller's thread. */
  public CompletableFuture<RunResult> awaitRunAsync(String sessionId) {
    SessionIds.requireValid(sessionId);
    calls.requireOpen();
    return ClientCalls.normalized(awaitRunAsyncOnce(sessionId));
  }

  private CompletableFuture<RunResult> awaitRunAsyncOnce(String sessionId) {
    AgentSessionWorkflow stub = calls.session(sessionId);
    UpdateOptions<RunResult> accepted =
        ClientCalls.update(RunResult.class, "send", WorkflowUpdateStage.ACCEPTED);
    CompletableFuture<RunResult> answer =
        calls.updateAsync(
            sessionId,
            () -> WorkflowClient.startUpdate(stub::send, ATTACH, accepted),
            e -> waitFailure(sessionId, e));
    return settledAsync(sessionId, answer)
        .exceptionallyCompose(
            e -> {
              Throwable cause = e instanceof CompletionException ? e.getCause() : e;
              Optional<RunResult> last =
                  cause instanceof RuntimeException failure
                      ? lastResultIfClosed(sessionId, failure)
                      : Optional.empty();
              return last.map(r -> CompletableFuture.completedFuture(withMessages(r)))
                  .orElseGet(() -> CompletableFuture.failedFuture(cause));
            });
  }

  /**
   * The last run's result of a closed session whose workflow Temporal still keeps (a wait for its
   * run finds no running workflow, {@code failure}), as its status query answers it; empty for
   * anything else.
   */
  private Optional<RunResult> lastResultIfClosed(String sessionId, RuntimeException failure) {
    if (!(failure instanceof SessionNotFoundException)) {
      return Optional.empty();
    }
    return status(sessionId)
        .filter(status -> status.lifecycle() == SessionLifecycle.CLOSED)
        .map(SessionStatus::lastResult);
  }

  private static RuntimeException waitFailure(String sessionId, RuntimeException e) {
    return ClientFailures.failure(
        sessionId, e, "Cannot wait for the run of '" + sessionId + "'", true);
  }

  /**
   * A send's request of {@code input}. Empty input is refused here: on the wire it means "wait for
   * the run", which {@code awaitRun} says by name.
   */
  private static SendRequest textRequest(String sessionId, String input) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(input, "input");
    SendRequest request = new SendRequest(input);
    if (request.isEmpty()) {
      throw new IllegalArgumentException(
          "send needs input; awaitRun(\""
              + sessionId
              + "\") waits for the run without sending any.");
    }
    return request;
  }

  private static SendRequest triggerRequest(String sessionId, TriggerEnvelope trigger) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(trigger, "trigger");
    return SendRequest.ofTrigger(trigger);
  }

  /** How often a send refused by a closing session waits for the close and is sent again. */
  private static final int MAX_CLOSING_RETRIES = 3;

  /**
   * Update-with-start of {@code send}, waiting for the run to settle; follows continue-as-new. A
   * send refused because the session is closing waits for its workflow to complete and is sent
   * again: it starts the session again from its last entry.
   */
  private RunResult sendWithStart(String sessionId, SendRequest input, SendOptions sendOptions) {
    for (int attempt = 1; ; attempt++) {
      try {
        return sendWithStartOnce(sessionId, input, sendOptions);
      } catch (SessionClosingException e) {
        if (attempt >= MAX_CLOSING_RETRIES) {
          throw e;
        }
        awaitClosed(sessionId);
      }
    }
  }

  /** Waits for the session's workflow to complete after its close. */
  private void awaitClosed(String sessionId) {
    try {
      calls.client().newUntypedWorkflowStub(sessionId).getResult(Void.class);
    } catch (RuntimeException e) {
      // Completed in another way, or gone: the next send finds out.
    }
  }

  private RunResult sendWithStartOnce(
      String sessionId, SendRequest input, SendOptions sendOptions) {
    Objects.requireNonNull(sendOptions, "sendOptions");
    SessionStart start = SendChecks.start(sessionId, sendOptions);
    SendRequest request = SendChecks.request(input, sendOptions);
    SendChecks.requireSendable(request, start, calls.client().getOptions().getDataConverter());
    UpdateOptions<RunResult> completed =
        ClientCalls.update(RunResult.class, "send", WorkflowUpdateStage.COMPLETED);
    RunResult result;
    try {
      result = sendOnce(request, start, sendOptions, completed, hasStartOptions(sendOptions));
    } catch (RuntimeException e) {
      if (!(hasStartOptions(sendOptions) && ClientFailures.isAlreadyRunning(e))) {
        throw sendFailure(sessionId, e);
      }
      // The session exists: its start options are what this send asks for, or it is refused.
      requireStartedWith(sessionId, sendOptions);
      try {
        result = sendOnce(request, start, sendOptions, completed, false);
      } catch (RuntimeException again) {
        throw sendFailure(sessionId, again);
      }
    }
    if (result != null && result.isContinued()) {
      // The session continued as new while we waited: attach to its next workflow run.
      return awaitRun(sessionId);
    }
    return withMessages(result);
  }

  /** One update-with-start of {@code send}, retried while the session recovers. */
  private RunResult sendOnce(
      SendRequest request,
      SessionStart start,
      SendOptions sendOptions,
      UpdateOptions<RunResult> completed,
      boolean mustStart) {
    AtomicBoolean attempted = new AtomicBoolean();
    return calls.call(
        start.sessionId(),
        () -> {
          AgentSessionWorkflow stub =
              stub(start, sendOptions, mustStart && !attempted.getAndSet(true));
          return WorkflowClient.executeUpdateWithStart(
              stub::send, request, completed, new WithStartWorkflowOperation<>(stub::run, start));
        });
  }

  /** {@link #sendWithStart}, started on the client's threads and awaited without one. */
  private CompletableFuture<RunResult> sendWithStartAsync(
      String sessionId, SendRequest input, SendOptions sendOptions) {
    Objects.requireNonNull(sendOptions, "sendOptions");
    SessionStart start = SendChecks.start(sessionId, sendOptions);
    SendRequest request = SendChecks.request(input, sendOptions);
    SendChecks.requireSendable(request, start, calls.client().getOptions().getDataConverter());
    UpdateOptions<RunResult> accepted =
        ClientCalls.update(RunResult.class, "send", WorkflowUpdateStage.ACCEPTED);
    CompletableFuture<RunResult> answer;
    if (!hasStartOptions(sendOptions)) {
      answer = sendOnceAsync(request, start, sendOptions, accepted, false);
    } else {
      answer =
          sendOnceAsync(request, start, sendOptions, accepted, true)
              .exceptionallyCompose(
                  failure -> {
                    Throwable cause = ClientFailures.unwrap(failure);
                    if (!ClientFailures.isAlreadyRunning(cause)) {
                      return CompletableFuture.failedFuture(cause);
                    }
                    // As in the blocking send: continue only a session started with these options.
                    return calls
                        .onClientThreads(
                            () -> {
                              requireStartedWith(sessionId, sendOptions);
                              return sessionId;
                            })
                        .thenCompose(
                            started -> sendOnceAsync(request, start, sendOptions, accepted, false));
                  });
    }
    return ClientCalls.normalized(
        settledAsync(
            sessionId,
            answer.exceptionallyCompose(
                failure -> {
                  Throwable cause = ClientFailures.unwrap(failure);
                  return CompletableFuture.failedFuture(
                      cause instanceof RuntimeException e ? sendFailure(sessionId, e) : cause);
                })));
  }

  private CompletableFuture<RunResult> sendOnceAsync(
      SendRequest request,
      SessionStart start,
      SendOptions sendOptions,
      UpdateOptions<RunResult> accepted,
      boolean mustStart) {
    AtomicBoolean attempted = new AtomicBoolean();
    return calls.updateAsync(
        start.sessionId(),
        () -> {
          // A stub and start operation serve one attempt each.
          AgentSessionWorkflow stub =
              stub(start, sendOptions, mustStart && !attempted.getAndSet(true));
          return WorkflowClient.startUpdateWithStart(
              stub::send, request, accepted, new WithStartWorkflowOperation<>(stub::run, start));
        },
        e -> e);
  }

  /**
   * The stub of one attempt of a send. A send with start options (agent, maxSteps) must start the
   * session ({@code mustStart}: its first attempt fails on a running one instead of continuing it
   * without them); a retry continues the session the first attempt may have started.
   */
  private AgentSessionWorkflow stub(
      SessionStart start, SendOptions sendOptions, boolean mustStart) {
    WorkflowOptions workflowOptions =
        WorkflowOptions.newBuilder()
            .setWorkflowId(start.sessionId())
            .setTaskQueue(calls.options().getTaskQueue())
            .setWorkflowIdConflictPolicy(
                mustStart
                    ? WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL
                    : WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
            .setStaticSummary(staticSummary(sendOptions.getAgent()))
            .build();
    return calls.client().newWorkflowStub(AgentSessionWorkflow.class, workflowOptions);
  }

  private static boolean hasStartOptions(SendOptions sendOptions) {
    return sendOptions.getAgent() != null || sendOptions.getMaxSteps() != null;
  }

  /**
   * Refuses start options that the existing session {@code sessionId} was not started with: the
   * send would continue it without them. Options it was started with (an app that names its agent
   * on every send) are no reason to refuse.
   *
   * @throws SessionExistsException naming the options that differ
   */
  private void requireStartedWith(String sessionId, SendOptions sendOptions) {
    // Also a workflow that has not taken its first send yet: the start of this very send, whose
    // first attempt reached the server while its answer was lost (a server restart), is retried.
    SessionStatus status = workflowStatus(sessionId).orElse(null);
    List<String> differ = new ArrayList<>();
    if (sendOptions.getAgent() != null
        && (status == null || !sendOptions.getAgent().equals(status.agent()))) {
      differ.add("agent '" + sendOptions.getAgent() + "'");
    }
    if (sendOptions.getMaxSteps() != null
        && (status == null || !sendOptions.getMaxSteps().equals(status.maxSteps()))) {
      differ.add("maxSteps " + sendOptions.getMaxSteps());
    }
    if (!differ.isEmpty()) {
      throw new SessionExistsException(
          sessionId,
          "Session '"
              + sessionId
              + "' already exists"
              + (status == null
                  ? ""
                  : " with agent '"
                      + status.agent()
                      + "' and "
                      + (status.maxSteps() == null
                          ? "the agent's maxSteps"
                          : "maxSteps " + status.maxSteps()))
              + ": "
              + String.join(" and ", differ)
              + " would be ignored, as only the send that starts a session sets them. Leave them"
              + " out to continue it, or pick a new session id.");
    }
  }

  private static RuntimeException sendFailure(String sessionId, RuntimeException e) {
    return ClientFailures.failure(
        sessionId, e, "Temporal refused send to '" + sessionId + "'", false);
  }

  /** What Temporal's UI shows of a session from its start: its agent, never its input. */
  static String staticSummary(String agent) {
    return agent == null ? "agent session (the worker's default agent)" : "agent " + agent;
  }

  /**
   * Follows a {@code continued} answer to the session's next workflow run, then adds the messages.
   */
  private CompletableFuture<RunResult> settledAsync(
      String sessionId, CompletableFuture<RunResult> answer) {
    return answer.thenCompose(
        result -> {
          if (result != null && result.isContinued()) {
            return awaitRunAsyncOnce(sessionId);
          }
          if (result == null || calls.options().getProjection() == null) {
            return CompletableFuture.completedFuture(result);
          }
          // A database read: on the client's threads, not on the one that delivered the answer.
          return calls.onClientThreads(() -> withMessages(result));
        });
  }

  /**
   * The result with the conversation from the projection. The session took the input already: a
   * projection that cannot be read leaves the messages out and is reported to the listener, never
   * thrown (a caller that retries a failed send would add its input again).
   */
  private RunResult withMessages(RunResult result) {
    if (result == null || calls.options().getProjection() == null) {
      return result;
    }
    try {
      return result.withMessages(
          calls.options().getProjection().messages(result.sessionId(), result.messageCount()));
    } catch (AgentClientException e) {
      calls.options().getProjectionFailureListener().accept(e);
      return result;
    }
  }

  /** Where the session is, or empty when there is no such session (see the client's status). */
  public Optional<SessionStatus> status(String sessionId) {
    SessionIds.requireValid(sessionId);
    return workflowStatus(sessionId)
        .filter(status -> !(status.run() == 0 && RunStatus.IDLE.equals(status.status())))
        .map(this::withCurrentPlace);
  }

  /**
   * What the session's workflow answers, also before its first send is taken; empty when there is
   * no workflow or the session was deleted.
   */
  private Optional<SessionStatus> workflowStatus(String sessionId) {
    try {
      SessionStatus status = calls.session(sessionId).status();
      return status.lifecycle() == SessionLifecycle.DELETED
          ? Optional.empty()
          : Optional.of(status);
    } catch (WorkflowNotFoundException e) {
      return Optional.empty();
    } catch (WorkflowQueryException | WorkflowServiceException e) {
      if (ClientFailures.isNotFound(e)) {
        return Optional.empty();
      }
      if (RecoveryRetry.isFailedTaskRefusal(e)) {
        throw new SessionRecoveringException(sessionId, e);
      }
      throw new AgentClientException(
          "Cannot read status of '" + sessionId + "': " + ClientFailures.rootMessage(e), e);
    }
  }

  /**
   * A queued run's place as the lease of its key tells it now (the session knows the place it was
   * given when it queued); as it is when the lease cannot be read.
   */
  private SessionStatus withCurrentPlace(SessionStatus status) {
    if (status.status() != RunStatus.QUEUED || status.concurrencyKey() == null) {
      return status;
    }
    try {
      KeyLeases leases =
          calls
              .client()
              .newWorkflowStub(
                  ConcurrencyKeyWorkflow.class,
                  ConcurrencyKeyWorkflow.workflowId(status.concurrencyKey()))
              .leases();
      int place = leases.placeOf(status.sessionId(), status.run());
      return place > 0 ? status.toBuilder().setQueuePlace(place).build() : status;
    } catch (RuntimeException e) {
      return status;
    }
  }

  /** Cancels the run in progress (a no-op when none is). */
  public void cancel(String sessionId) {
    SessionIds.requireValid(sessionId);
    AgentSessionWorkflow stub = calls.session(sessionId);
    try {
      // A signal: a recovering session was not seen to refuse one, but it would be retried.
      calls.call(
          sessionId,
          () -> {
            stub.cancel("cancelled by client");
            return null;
          });
    } catch (WorkflowNotFoundException e) {
      throw new SessionNotFoundException(sessionId);
    } catch (WorkflowServiceException e) {
      if (ClientFailures.isNotFound(e)) {
        throw new SessionNotFoundException(sessionId);
      }
      throw new AgentClientException(
          "Cannot cancel '" + sessionId + "': " + ClientFailures.rootMessage(e), e);
    }
  }
}
