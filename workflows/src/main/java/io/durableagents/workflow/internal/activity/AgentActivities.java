package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Resolves an agent name to its spec on the worker side. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface AgentActivities {

  /**
   * Returns the spec of the named agent, or of the worker's default agent for a null name. Fails
   * with the non-retryable type {@code unknown_agent} when no such agent is registered.
   */
  @ActivityMethod
  AgentSpec resolveAgent(String agentName);

  /**
   * Returns the spec of the run's definition and records the definition in the store under its
   * fingerprint, so every later turn of the run, on any worker, uses it. For a {@code resolution}
   * that names a recorded fingerprint the worker's store knows, the spec of that definition. Fails
   * like {@link #resolveAgent}, and with {@code invalid_input} when a dynamic agent's factory
   * refuses the run configuration.
   */
  @ActivityMethod
  AgentSpec resolveRun(RunResolution resolution);
}
