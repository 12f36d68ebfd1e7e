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
}
