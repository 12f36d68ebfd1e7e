package io.durableagents.model;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import java.util.List;
import java.util.Objects;

/** One model turn as a provider sees it. */
public final class ModelRequest {
  private final String sessionId;
  private final String agent;
  private final String model;
  private final String instructions;
  private final List<Message> messages;
  private final List<ToolDefinition> tools;
  private final int step;
  private final java.util.Map<String, AttachmentContent> attachments;
  private final int leftOutTurns;

  private ModelRequest(
      String sessionId,
      String agent,
      String model,
      String instructions,
      List<Message> messages,
      List<ToolDefinition> tools,
      int step,
      java.util.Map<String, AttachmentContent> attachments,
      int leftOutTurns) {
    messages = List.copyOf(messages);
    tools = List.copyOf(tools);
    attachments = attachments == null ? java.util.Map.of() : java.util.Map.copyOf(attachments);
    this.sessionId = sessionId;
    this.agent = agent;
    this.model = model;
    this.instructions = instructions;
    this.messages = messages;
    this.tools = tools;
    this.step = step;
    this.attachments = attachments;
    this.leftOutTurns = leftOutTurns;
  }

  /** A builder of a new {@code ModelRequest}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The session */
  public String sessionId() {
    return sessionId;
  }

  /** The agent's name */
  public String agent() {
    return agent;
  }

  /** The agent's model name (provider specific) */
  public String model() {
    return model;
  }

  /** The agent's system instructions */
  public String instructions() {
    return instructions;
  }

  /** The whole conversation so far, oldest first */
  public List<Message> messages() {
    return messages;
  }

  /** The tools the model may call */
  public List<ToolDefinition> tools() {
    return tools;
  }

  /** The checkpoint step this turn is saved under */
  public int step() {
    return step;
  }

  /** The bytes of the messages' attachments, by artifact id (this call only) */
  public java.util.Map<String, AttachmentContent> attachments() {
    return attachments;
  }

  /**
   * The model turns of the conversation that {@link #messages()} leaves out: compaction kept them
   * out of the model's view (see docs/context.md); 0 when the view is the whole conversation.
   */
  public int leftOutTurns() {
    return leftOutTurns;
  }

  /**
   * The number of earlier model turns: the assistant messages of the conversation, those the view
   * left out included.
   */
  public int assistantTurns() {
    return leftOutTurns + (int) messages.stream().filter(m -> m.role() == Role.ASSISTANT).count();
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof ModelRequest that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && Objects.equals(agent, that.agent)
        && Objects.equals(model, that.model)
        && Objects.equals(instructions, that.instructions)
        && Objects.equals(messages, that.messages)
        && Objects.equals(tools, that.tools)
        && step == that.step
        && Objects.equals(attachments, that.attachments)
        && leftOutTurns == that.leftOutTurns;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId, agent, model, instructions, messages, tools, step, attachments, leftOutTurns);
  }

  @Override
  public String toString() {
    return "ModelRequest[sessionId="
        + sessionId
        + ", agent="
        + agent
        + ", model="
        + model
        + ", instructions="
        + instructions
        + ", messages="
        + messages
        + ", tools="
        + tools
        + ", step="
        + step
        + ", attachments="
        + attachments
        + ", leftOutTurns="
        + leftOutTurns
        + "]";
  }

  /** Builds a {@link ModelRequest}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private String agent;
    private String model;
    private String instructions;
    private List<Message> messages;
    private List<ToolDefinition> tools;
    private int step;
    private java.util.Map<String, AttachmentContent> attachments;
    private int leftOutTurns;

    private Builder() {}

    private Builder(ModelRequest value) {
      this.sessionId = value.sessionId;
      this.agent = value.agent;
      this.model = value.model;
      this.instructions = value.instructions;
      this.messages = value.messages;
      this.tools = value.tools;
      this.step = value.step;
      this.attachments = value.attachments;
      this.leftOutTurns = value.leftOutTurns;
    }

    /** Sets {@link ModelRequest#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link ModelRequest#agent()}. */
    public Builder setAgent(String agent) {
      this.agent = agent;
      return this;
    }

    /** Sets {@link ModelRequest#model()}. */
    public Builder setModel(String model) {
      this.model = model;
      return this;
    }

    /** Sets {@link ModelRequest#instructions()}. */
    public Builder setInstructions(String instructions) {
      this.instructions = instructions;
      return this;
    }

    /** Sets {@link ModelRequest#messages()}. */
    public Builder setMessages(List<Message> messages) {
      this.messages = messages;
      return this;
    }

    /** Sets {@link ModelRequest#tools()}. */
    public Builder setTools(List<ToolDefinition> tools) {
      this.tools = tools;
      return this;
    }

    /** Sets {@link ModelRequest#step()}. */
    public Builder setStep(int step) {
      this.step = step;
      return this;
    }

    /** Sets {@link ModelRequest#attachments()}. */
    public Builder setAttachments(java.util.Map<String, AttachmentContent> attachments) {
      this.attachments = attachments;
      return this;
    }

    /** Sets {@link ModelRequest#leftOutTurns()}. */
    public Builder setLeftOutTurns(int leftOutTurns) {
      this.leftOutTurns = leftOutTurns;
      return this;
    }

    /** The value. */
    public ModelRequest build() {
      return new ModelRequest(
          sessionId, agent, model, instructions, messages, tools, step, attachments, leftOutTurns);
    }
  }
}
