package io.durableagents.agent;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Builds a dynamic agent for one run from its run configuration: the JSON object given with the
 * message that starts the run (for example a customer tier). The configuration is saved with the
 * run and is part of its fingerprint; a resume, a fork or a drift check builds the agent again from
 * the saved configuration, so the factory must be a pure function of it (no clocks, no randoms, no
 * lookups that change between calls).
 */
@FunctionalInterface
public interface AgentFactory {

  /**
   * The agent for a run with {@code runConfig} (an empty object when the message gave none). Its
   * name must be the name the factory is registered under.
   */
  Agent create(ObjectNode runConfig);
}
