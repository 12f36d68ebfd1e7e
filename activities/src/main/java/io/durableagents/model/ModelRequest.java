package io.durableagents.model;

import io.durableagents.workflow.Message;
import java.util.List;

/**
 * One model turn as a provider sees it.
 *
 * @param sessionId the session
 * @param agent the agent's name
 * @param model the agent's model name (provider specific)
 * @param instructions the agent's system instructions
 * @param messages the whole conversation so far, oldest first
 * @param tools the tools the model may call
 * @param step the checkpoint step this turn is saved under
 */
public record ModelRequest(
    String sessionId,
    String agent,
    String model,
    String instructions,
    List<Message> messages,
    List<ToolDefinition> tools,
    int step) {

  public ModelRequest {
    messages = List.copyOf(messages);
    tools = List.copyOf(tools);
  }

  /** Assistant messages already in the conversation: the number of earlier model turns. */
  public int assistantTurns() {
    return (int) messages.stream().filter(m -> Message.ASSISTANT.equals(m.role())).count();
  }
}
