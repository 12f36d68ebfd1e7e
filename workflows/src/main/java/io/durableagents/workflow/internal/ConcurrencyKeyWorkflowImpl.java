package io.durableagents.workflow.internal;

import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.LeaseActivities;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.KeyLeases;
import io.durableagents.workflow.internal.wire.LeaseRequest;
import io.durableagents.workflow.internal.wire.Rejection;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.SignalExternalWorkflowException;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import org.slf4j.Logger;

/**
 * The lease of one concurrency key (see {@link ConcurrencyKeyWorkflow}). Its state lives in its
 * history only, so a killed worker delays a grant but never loses or doubles one. The holder's
 * session gives the lease back when its run settles; a holder whose session is no longer open
 * (terminated, reset away) is noticed at the next {@link #HOLDER_CHECK} and its lease given to the
 * next run, as is a grant whose signal finds no session.
 */
public class ConcurrencyKeyWorkflowImpl implements ConcurrencyKeyWorkflow {
  private static final Logger log = Workflow.getLogger(ConcurrencyKeyWorkflowImpl.class);

  /** How often the holder's session is checked to be still open. */
  static final Duration HOLDER_CHECK = Duration.ofMinutes(1);

  /** Grants after which the lease continues as new, so its history stays short. */
  static final int GRANTS_PER_RUN = 50;

  private static final ActivityOptions CHECK_OPTIONS =
      ActivityOptions.newBuilder()
          .setStartToCloseTimeout(Duration.ofSeconds(10))
          .setRetryOptions(
              RetryOptions.newBuilder()
                  .setInitialInterval(Duration.ofSeconds(1))
                  .setMaximumInterval(Duration.ofMinutes(1))
                  .setMaximumAttempts(0)
                  .build())
          .build();

  private final Deque<LeaseRequest> waiting = new ArrayDeque<>();
  private LeaseRequest holder;
  private int grants;

  @WorkflowInit
  public ConcurrencyKeyWorkflowImpl(KeyLeases carried) {
    if (carried != null) {
      holder = carried.holder();
      waiting.addAll(carried.waiting());
    }
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // the same request still holding, not an equal one
  public void run(KeyLeases carried) {
    while (true) {
      if (holder == null && !waiting.isEmpty()) {
        grant(waiting.poll());
        continue;
      }
      if (holder == null) {
        // Idle: complete, unless an acquire or release that came with this task still runs. An
        // acquire that comes later starts a new run of the lease.
        Workflow.await(Workflow::isEveryHandlerFinished);
        if (holder == null && waiting.isEmpty()) {
          return;
        }
        continue;
      }
      if (grants >= GRANTS_PER_RUN || Workflow.getInfo().isContinueAsNewSuggested()) {
        Workflow.await(Workflow::isEveryHandlerFinished);
        Workflow.continueAsNew(leases());
      }
      LeaseRequest current = holder;
      if (!Workflow.await(HOLDER_CHECK, () -> holder != current)
          && !Workflow.newActivityStub(LeaseActivities.class, CHECK_OPTIONS)
              .sessionOpen(current.sessionId())
          && holder == current) {
        log.info("{} holds the lease of '{}' but is closed; taken back", current, current.key());
        holder = null;
      }
    }
  }

  /** Signals {@code next}'s session that it holds the lease; a session that is gone does not. */
  @SuppressWarnings("ReferenceEquality") // the same request still holding, not an equal one
  private void grant(LeaseRequest next) {
    holder = next;
    grants++;
    try {
      Workflow.newExternalWorkflowStub(AgentSessionWorkflow.class, next.sessionId())
          .leaseGranted(next);
    } catch (SignalExternalWorkflowException | ApplicationFailure e) {
      // The SDK reports a signal to a workflow that is not running as an ApplicationFailure.
      log.info("{} cannot be granted the lease of '{}': {}", next, next.key(), e.getMessage());
      if (holder == next) {
        holder = null;
      }
    }
  }

  @Override
  public void validateAcquire(LeaseRequest request) {
    if (request == null || request.key() == null || request.sessionId() == null) {
      throw Rejection.failure(FailureTypes.INVALID_INPUT, "acquire needs a key and a session id");
    }
  }

  @Override
  public int acquire(LeaseRequest request) {
    int place = leases().placeOf(request.sessionId(), request.run());
    if (place >= 0) {
      return place;
    }
    waiting.add(request);
    // Without a holder, the first waiting run is granted the lease as soon as this update returns.
    return waiting.size() - (holder == null ? 1 : 0);
  }

  @Override
  public void release(LeaseRequest request) {
    if (request == null) {
      return;
    }
    if (request.sameHolder(holder)) {
      holder = null;
      return;
    }
    waiting.removeIf(request::sameHolder);
  }

  @Override
  public KeyLeases leases() {
    return new KeyLeases(holder, new ArrayList<>(waiting));
  }
}
