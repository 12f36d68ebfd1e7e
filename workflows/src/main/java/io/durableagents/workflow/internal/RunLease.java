package io.durableagents.workflow.internal;

import io.durableagents.session.RunStatus;
import io.durableagents.workflow.internal.activity.LeaseActivities;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * A run's lease of its concurrency key: before its first model turn the run queues for the lease
 * ({@link ConcurrencyKeyWorkflow}), shows {@code queued} with its place while it waits, and goes on
 * once the key's workflow signals the grant; when the run settles (or is cancelled while it waits)
 * the lease is given back. A lease held across continue-as-new is carried in the run's snapshot.
 */
final class RunLease {
  private static final Logger log = Workflow.getLogger(RunLease.class);

  /**
   * The update of the key's workflow is quick; retried without a limit, since a run without its
   * lease cannot go on, and idempotent (a repeated acquire answers the same place).
   */
  private static final ActivityOptions ACQUIRE_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofMillis(500))
                  .setMaximumInterval(Duration.ofSeconds(10))
                  .setMaximumAttempts(0)
                  .build())
          .build();

  private final Session session;
  private final LeaseRequest request;

  /** Queued at the key's workflow (or holding its lease), so it must be given back. */
  private boolean requested;

  private boolean granted;

  /** The place the acquire answered (0: holds the lease). */
  private int place;

  private RunLease(Session session, String key, int run, boolean held) {
    this.session = session;
    this.request = new LeaseRequest(key, session.id(), run);
    this.requested = held;
    this.granted = held;
  }

  /** The lease of {@code key} for run {@code run}, not asked for yet. */
  static RunLease of(Session session, String key, int run) {
    return new RunLease(session, key, run, false);
  }

  /** The lease of {@code key} that run {@code run} held when the session continued as new. */
  static RunLease held(Session session, String key, int run) {
    return new RunLease(session, key, run, true);
  }

  String key() {
    return request.key();
  }

  /** The run's place in the key's queue while it waits (1: next), else null. */
  Integer waitingPlace() {
    return granted ? null : place;
  }

  /**
   * Queues for the lease and waits for its grant, showing the run {@code queued}. The wait ends
   * with a {@code CanceledFailure} when the run is cancelled; the queue is left on {@link
   * #release}. From {@link ChangeIds#CANCELLABLE_LEASE_WAIT} on, a cancel also ends the ask for the
   * lease, which is quick unless the key's lock cannot answer (a workflow no worker runs under its
   * id); before, the ask ran to its end whatever came, retried without a limit.
   */
  void acquire() {
    Workflow.getVersion(ChangeIds.CONCURRENCY_KEYS, Workflow.DEFAULT_VERSION, 1);
    requested = true;
    Runnable ask =
        () ->
            place =
                Workflow.newActivityStub(LeaseActivities.class, ACQUIRE_OPTIONS)
                    .acquireLease(request);
    if (Workflow.getVersion(ChangeIds.CANCELLABLE_LEASE_WAIT, Workflow.DEFAULT_VERSION, 1)
        == Workflow.DEFAULT_VERSION) {
      Workflow.newDetachedCancellationScope(ask).run();
    } else {
      // A cancel ends the ask too: release() then leaves a queue the run may have joined, and a
      // grant that comes all the same is given back (AgentSessionWorkflowImpl#leaseGranted).
      ask.run();
    }
    if (!granted) {
      session.state.statusChanged(RunStatus.QUEUED);
      session.show();
      log.info("{} queued for the lease of '{}' at place {}", request, key(), place);
      Workflow.await(() -> granted);
      session.state.statusChanged(RunStatus.IN_PROGRESS);
      session.show();
    }
  }

  /**
   * The key's workflow granted {@code grant}: answers whether it is this lease's. The grant reached
   * this session, so its run and key say whose it is (a replay may not know the session's id).
   */
  boolean granted(LeaseRequest grant) {
    if (!requested || grant.run() != request.run() || !key().equals(grant.key())) {
      return false;
    }
    granted = true;
    return true;
  }

  /**
   * Gives the lease back, or leaves the queue: the run settled. Runs even when the session itself
   * is being cancelled.
   */
  void release() {
    if (!requested) {
      return;
    }
    requested = false;
    granted = false;
    Workflow.newDetachedCancellationScope(() -> giveBack(request)).run();
  }

  /** Gives back a lease the session does not want (a grant for a run that no longer waits). */
  static void giveBack(LeaseRequest lease) {
    try {
      Workflow.newExternalWorkflowStub(
              ConcurrencyKeyWorkflow.class, ConcurrencyKeyWorkflow.workflowId(lease.key()))
          .release(lease);
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      // The key's workflow completed: it holds nothing of this run. (The SDK reports a signal to
      // a workflow that is not running as an ApplicationFailure.)
      log.info("release of '{}' for {}: {}", lease.key(), lease, e.getMessage());
    }
  }
}
