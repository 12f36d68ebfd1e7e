package io.durableagents.activities.internal;

import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.AgentSpec;

public final class AgentActivitiesImpl implements AgentActivities {
  private final AgentRegistry registry;
  private final SearchAttributeCheck searchAttributes;

  public AgentActivitiesImpl(AgentRegistry registry, SearchAttributeCheck searchAttributes) {
    this.registry = registry;
    this.searchAttributes = searchAttributes;
  }

  /** The agent's spec, saying whether its sessions may upsert their search attributes. */
  @Override
  public AgentSpec resolveAgent(String agentName) {
    return registry.spec(agentName).withSearchAttributes(searchAttributes.upserts());
  }
}
