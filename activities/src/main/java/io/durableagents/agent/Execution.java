package io.durableagents.agent;

/**
 * How a tool call or a model turn runs on Temporal.
 *
 * <ul>
 *   <li>{@link #ACTIVITY} (default): a regular activity. Dispatched to any worker of the task
 *       queue, heartbeats, can be cancelled while it runs, retried by the server; costs two server
 *       round trips. Right for model calls that take seconds and for slow or side-effecting tools.
 *   <li>{@link #LOCAL_ACTIVITY}: runs in the worker that runs the workflow task, its result
 *       recorded with the task. No extra round trips (a few milliseconds instead of ~10), but no
 *       heartbeats and no cancellation while it runs; keep it short (well under the workflow task
 *       timeout, 10 s by default). Right for fast lookups and low-latency models.
 * </ul>
 *
 * <p>The semantics of a tool batch are the same in both modes: one result per call, in call order;
 * recorded results never re-run; approvals; cancelled results.
 */
public enum Execution {
  /** A regular activity, scheduled through the server. */
  ACTIVITY,
  /** A local activity, run in the worker that runs the workflow task. */
  LOCAL_ACTIVITY
}
