package io.durableagents.activities.internal;

import io.durableagents.agent.Agent;
import io.durableagents.agent.SubAgent;
import io.durableagents.model.ToolDefinition;
import io.durableagents.tools.Tool;
import java.util.ArrayList;
import java.util.List;

/** The check an agent passes when it loads: its requests can fit its model's context window. */
public final class ContextFit {
  private ContextFit() {}

  /**
   * Refuses an agent whose instructions and tool definitions alone leave no room in the window for
   * a conversation (tools of tool providers, known only at run time, are not counted).
   *
   * @throws IllegalArgumentException naming the agent and the settings
   */
  public static void require(Agent agent) {
    ContextBudget budget =
        ContextDefinition.budget(ContextDefinition.of(agent.contextOptions()), agent.model());
    if (budget.inputBudget() <= 0) {
      return;
    }
    List<ToolDefinition> tools = new ArrayList<>();
    for (Tool tool : agent.tools()) {
      tools.add(new ToolDefinition(tool.name(), tool.description(), tool.inputSchema()));
    }
    for (SubAgent subAgent : agent.subAgents()) {
      tools.add(
          new ToolDefinition(subAgent.name(), subAgent.description(), subAgent.inputSchema()));
    }
    long fixed = TokenEstimate.fixed(agent.instructions(), tools);
    // Half the input budget is what a compacted view comes down to: the fixed part must leave room.
    if (fixed >= (long) (ContextBudget.TARGET * budget.inputBudget())) {
      throw new IllegalArgumentException(
          "Agent '"
              + agent.name()
              + "': its instructions and tool definitions take about "
              + fixed
              + " tokens, which leaves no room for a conversation in contextWindow "
              + budget.window()
              + " less maxOutputTokens "
              + budget.maxOutputTokens()
              + " (at least twice that is needed). Set a larger contextWindow in its"
              + " ContextOptions, or shorten the instructions.");
    }
  }
}
