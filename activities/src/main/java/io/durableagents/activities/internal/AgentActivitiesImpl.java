package io.durableagents.activities.internal;

import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.RunResolution;

public final class AgentActivitiesImpl implements AgentActivities {
  private final AgentDefinitions definitions;
  private final SearchAttributeCheck searchAttributes;

  public AgentActivitiesImpl(AgentDefinitions definitions, SearchAttributeCheck searchAttributes) {
    this.definitions = definitions;
    this.searchAttributes = searchAttributes;
  }

  /** The agent's spec, saying whether its sessions may upsert their search attributes. */
  @Override
  public AgentSpec resolveAgent(String agentName) {
    return definitions.registry().spec(agentName).withSearchAttributes(searchAttributes.upserts());
  }

  @Override
  public AgentSpec resolveRun(RunResolution resolution) {
    return definitions.resolve(resolution).withSearchAttributes(searchAttributes.upserts());
  }
}
