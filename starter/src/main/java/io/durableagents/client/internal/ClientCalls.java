package io.durableagents.client.internal;

import io.durableagents.client.AgentClientOptions;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowUpdateHandle;
import io.temporal.client.WorkflowUpdateStage;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What every request of the client shares: the Temporal client, the options, the retries while a
 * session recovers, and the one executor of the async methods, which {@link #close()} releases.
 */
public final class ClientCalls implements AutoCloseable {
  private final WorkflowClient client;
  private final AgentClientOptions options;

  /** Starts updates for the async methods: the SDK offers no non-blocking way to start one. */
  private final ExecutorService asyncStarts;

  /** Retries requests a recovering session refuses. */
  private final RecoveryRetry recovery;

  private ClientCalls(WorkflowClient client, AgentClientOptions options) {
    this.client = client;
    this.options = options;
    this.asyncStarts = newAsyncStarts();
    this.recovery = RecoveryRetry.newInstance(options.getRecoveryTimeout(), asyncStarts);
  }

  /** The shared part of a client of {@code client}'s namespace with {@code options}. */
  public static ClientCalls newInstance(WorkflowClient client, AgentClientOptions options) {
    return new ClientCalls(client, options);
  }

  /**
   * Threads created on demand and dropped after a minute idle; daemons, so a client that is never
   * closed does not keep the JVM alive. Unbounded, because each one only waits for Temporal to
   * accept an update, as the caller's own thread would in the blocking method.
   */
  private static ExecutorService newAsyncStarts() {
    AtomicInteger threads = new AtomicInteger();
    return Executors.newCachedThreadPool(
        task -> {
          Thread thread = new Thread(task, "agent-client-async-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
  }

  /** Releases the async methods' threads; calls already started complete. */
  @Override
  public void close() {
    asyncStarts.shutdown();
  }

  WorkflowClient client() {
    return client;
  }

  AgentClientOptions options() {
    return options;
  }

  /** A stub of the running workflow of session {@code sessionId}. */
  AgentSessionWorkflow session(String sessionId) {
    return client.newWorkflowStub(AgentSessionWorkflow.class, sessionId);
  }

  /**
   * Starts a new session workflow with {@code options} and {@code start} and waits until it has
   * prepared its transcript (update-with-start of {@code forkPrepared}), as a fork and a reset do.
   * A retry after the workflow ran asks it again rather than start another. Null when a workflow
   * under the id runs already; other failures are thrown as the SDK gives them.
   */
  ForkOutcome startPrepared(WorkflowOptions options, SessionStart start) {
    String id = options.getWorkflowId();
    AgentSessionWorkflow stub = client.newWorkflowStub(AgentSessionWorkflow.class, options);
    UpdateOptions<ForkOutcome> prepared =
        update(ForkOutcome.class, "forkPrepared", WorkflowUpdateStage.COMPLETED);
    WithStartWorkflowOperation<RunResult> withStart =
        new WithStartWorkflowOperation<>(stub::run, start);
    AtomicBoolean started = new AtomicBoolean();
    try {
      return call(
          id,
          () ->
              started.getAndSet(true)
                  // Refused once the workflow ran (a start that is refused fails otherwise).
                  ? WorkflowClient.startUpdate(session(id)::forkPrepared, prepared).getResult()
                  : WorkflowClient.executeUpdateWithStart(stub::forkPrepared, prepared, withStart));
    } catch (RuntimeException e) {
      if (ClientFailures.isAlreadyRunning(e)) {
        return null;
      }
      throw e;
    }
  }

  /** {@code attempt}, again while the session refuses it because it recovers. */
  <T> T call(String sessionId, Supplier<T> attempt) {
    return recovery.call(attempt, e -> ClientFailures.recovering(sessionId, e));
  }

  /**
   * Starts an update on the client's threads (the SDK starts one only blocking) and waits for its
   * result without a thread, again while the recovering session refuses it; a failure of either
   * becomes the client's exception by {@code errors}.
   */
  // The callback completes mapped on every path; the stage whenComplete returns has nothing more.
  @SuppressWarnings("FutureReturnValueIgnored")
  <R> CompletableFuture<R> updateAsync(
      String sessionId,
      Supplier<WorkflowUpdateHandle<R>> start,
      Function<RuntimeException, RuntimeException> errors) {
    requireOpen();
    CompletableFuture<R> mapped = new CompletableFuture<>();
    recovery
        .callAsync(
            () ->
                CompletableFuture.supplyAsync(start, asyncStarts)
                    .thenCompose(WorkflowUpdateHandle::getResultAsync),
            e -> ClientFailures.recovering(sessionId, e))
        .whenComplete(
            (value, failure) -> {
              if (failure == null) {
                mapped.complete(value);
                return;
              }
              Throwable cause = ClientFailures.unwrap(failure);
              mapped.completeExceptionally(
                  cause instanceof RuntimeException e ? errors.apply(e) : cause);
            });
    return mapped;
  }

  /** {@code work} on the client's threads, as a stage of an async call. */
  <T> CompletableFuture<T> onClientThreads(Supplier<T> work) {
    return CompletableFuture.supplyAsync(work, asyncStarts);
  }

  /** Refuses an async call once the client is closed: it has no threads left. */
  void requireOpen() {
    if (asyncStarts.isShutdown()) {
      throw new IllegalStateException(
          "This AgentClient is closed: its async methods have no threads left");
    }
  }

  /**
   * Options of one update call, returning at {@code stage} (async methods: {@code ACCEPTED}, then
   * wait for the result without a thread). Its attempts share the update id, so the server answers
   * a retry of an update it applied with that update's outcome instead of applying it again.
   */
  static <R> UpdateOptions<R> update(
      Class<R> resultClass, String updateName, WorkflowUpdateStage stage) {
    return UpdateOptions.newBuilder(resultClass)
        .setUpdateName(updateName)
        .setUpdateId(UUID.randomUUID().toString())
        .setWaitForStage(stage)
        .build();
  }

  /**
   * {@code future}, completed with the cause itself rather than a {@link
   * java.util.concurrent.CompletionException} around it, as a stage composed from others would be:
   * callers see the blocking method's exception in {@code exceptionally} and {@code handle}.
   */
  // The callback completes result on every path; the stage whenComplete returns has nothing more.
  @SuppressWarnings("FutureReturnValueIgnored")
  static <T> CompletableFuture<T> normalized(CompletableFuture<T> future) {
    CompletableFuture<T> result = new CompletableFuture<>();
    future.whenComplete(
        (value, failure) -> {
          if (failure == null) {
            result.complete(value);
          } else {
            result.completeExceptionally(ClientFailures.unwrap(failure));
          }
        });
    return result;
  }
}
