package io.durableagents.activities.internal;

import io.durableagents.workflow.activity.AgentActivities;
import io.durableagents.workflow.activity.AgentSpec;

public final class AgentActivitiesImpl implements AgentActivities {
  private final AgentRegistry registry;

  public AgentActivitiesImpl(AgentRegistry registry) {
    this.registry = registry;
  }

  @Override
  public AgentSpec resolveAgent(String agentName) {
    return registry.spec(agentName);
  }
}
