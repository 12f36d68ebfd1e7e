package io.durableagents.workflow.internal.wire;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * The lease of one concurrency key: runs that share a key run one at a time, first come first
 * served, across all sessions and workers. Its workflow id is {@link #workflowId}; it is started by
 * the first {@code acquire} (update-with-start), grants the lease by signalling the holder's
 * session ({@code leaseGranted}), takes it back on {@code release}, and completes once nobody holds
 * or waits.
 */
@WorkflowInterface
public interface ConcurrencyKeyWorkflow {

  /** Workflow type name, stable across versions. */
  String WORKFLOW_TYPE = "AgentConcurrencyKey";

  /** The prefix of a key workflow's id: the key follows it. */
  String ID_PREFIX = "agents-key:";

  /** The workflow id of the lease of {@code key}. */
  static String workflowId(String key) {
    return ID_PREFIX + key;
  }

  /** Runs the lease: {@code carried} is what a previous run of it handed over (null: nothing). */
  @WorkflowMethod(name = WORKFLOW_TYPE)
  void run(KeyLeases carried);

  /**
   * Queues the run for the lease, once (a repeated request answers the same place), and answers its
   * place: 0 when it holds the lease, n when n - 1 runs wait before it.
   */
  @UpdateMethod(name = "acquire")
  int acquire(LeaseRequest request);

  @UpdateValidatorMethod(updateName = "acquire")
  void validateAcquire(LeaseRequest request);

  /**
   * Gives the lease back, or leaves the queue; a release of a run that neither holds nor waits is
   * ignored.
   */
  @SignalMethod(name = "release")
  void release(LeaseRequest request);

  /** The holder and the waiting runs, in order. */
  @QueryMethod(name = "leases")
  KeyLeases leases();
}
