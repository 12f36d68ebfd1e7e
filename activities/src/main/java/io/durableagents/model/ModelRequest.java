package io.durableagents.model;

import io.durableagents.conversation.Message;
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
 * @param attachments the bytes of the messages' attachments, by artifact id (this call only)
 */
public record ModelRequest(
    String sessionId,
    String agent,
    String model,
    String instructions,
    List<Message> messages,
    List<ToolDefinition> tools,
    int step,
    java.util.Map<String, AttachmentContent> attachments) {

  public ModelRequest {
    messages = List.copyOf(messages);
    tools = List.copyOf(tools);
    attachments = attachments == null ? java.util.Map.of() : java.util.Map.copyOf(attachments);
  }

  public ModelRequest(
      String sessionId,
      String agent,
      String model,
      String instructions,
      List<Message> messages,
      List<ToolDefinition> tools,
      int step) {
    this(sessionId, agent, model, instructions, messages, tools, step, java.util.Map.of());
  }

  /** Assistant messages already in the conversation: the number of earlier model turns. */
  public int assistantTurns() {
    return (int) messages.stream().filter(m -> Message.ASSISTANT.equals(m.role())).count();
  }
}
