package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of one run: the work one message triggered. {@code steps}, {@code usage} and {@code
 * toolCalls} count this run only; {@code messages} is the whole conversation.
 *
 * <p>{@code continued} is true on an answer given because the session continued as new while the
 * caller waited: the run goes on in the session's next workflow run, and the caller sends empty
 * input to attach to it again ({@code AgentClient} does this transparently).
 *
 * <p>The workflow returns it without {@code messages} (the transcript lives in the store, never in
 * Temporal payloads); {@code AgentClient} fills them in from the projection. For the same reason
 * {@code toolCalls} carries arguments and results only up to {@link #MAX_TOOL_CALL_CHARS} in all:
 * the calls after that are listed {@linkplain ToolCallRecord#isOmitted() omitted}, and {@link
 * #withMessages} restores them from the transcript.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public final class RunResult {
  private final String sessionId;
  private final int run;
  private final RunStatus status;
  private final String finishReason;
  private final String text;
  private final JsonNode output;
  private final int steps;
  private final Usage usage;
  private final List<ToolCallRecord> toolCalls;
  private final Approval approval;
  private final ErrorInfo error;
  private final int checkpointStep;
  private final int messageCount;
  private final List<Message> messages;
  private final Boolean continued;

  @JsonCreator
  private RunResult(
      @JsonProperty("sessionId") String sessionId,
      @JsonProperty("run") int run,
      @JsonProperty("status") RunStatus status,
      @JsonProperty("finishReason") String finishReason,
      @JsonProperty("text") String text,
      @JsonProperty("output") JsonNode output,
      @JsonProperty("steps") int steps,
      @JsonProperty("usage") Usage usage,
      @JsonProperty("toolCalls") List<ToolCallRecord> toolCalls,
      @JsonProperty("approval") Approval approval,
      @JsonProperty("error") ErrorInfo error,
      @JsonProperty("checkpointStep") int checkpointStep,
      @JsonProperty("messageCount") int messageCount,
      @JsonProperty("messages") List<Message> messages,
      @JsonProperty("continued") Boolean continued) {
    toolCalls = toolCalls == null ? List.of() : List.copyOf(toolCalls);
    usage = usage == null ? Usage.ZERO : usage;
    this.sessionId = sessionId;
    this.run = run;
    this.status = status;
    this.finishReason = finishReason;
    this.text = text;
    this.output = output;
    this.steps = steps;
    this.usage = usage;
    this.toolCalls = toolCalls;
    this.approval = approval;
    this.error = error;
    this.checkpointStep = checkpointStep;
    this.messageCount = messageCount;
    this.messages = messages;
    this.continued = continued;
  }

  /** A builder of a new {@code RunResult}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The session the run belongs to. */
  @JsonProperty("sessionId")
  public String sessionId() {
    return sessionId;
  }

  /** The run number: runs count the messages sent to the session, from 1. */
  @JsonProperty("run")
  public int run() {
    return run;
  }

  /** Where the run stands. */
  @JsonProperty("status")
  public RunStatus status() {
    return status;
  }

  /**
   * Why the model stopped, as it said (see {@link io.durableagents.conversation.FinishReason}), or
   * null.
   */
  @JsonProperty("finishReason")
  public String finishReason() {
    return finishReason;
  }

  /** The final assistant text, or null. */
  @JsonProperty("text")
  public String text() {
    return text;
  }

  /** The final text parsed as JSON, for agents with an output schema; otherwise null. */
  @JsonProperty("output")
  public JsonNode output() {
    return output;
  }

  /** The model turns of this run. */
  @JsonProperty("steps")
  public int steps() {
    return steps;
  }

  /** Tokens this run used. */
  @JsonProperty("usage")
  public Usage usage() {
    return usage;
  }

  /** The tool calls of this run, each with its one recorded result. */
  @JsonProperty("toolCalls")
  public List<ToolCallRecord> toolCalls() {
    return toolCalls;
  }

  /** The approval the run waits for, when it is awaiting approval; otherwise null. */
  @JsonProperty("approval")
  public Approval approval() {
    return approval;
  }

  /** Why the run failed, or null. */
  @JsonProperty("error")
  public ErrorInfo error() {
    return error;
  }

  /** The step of the run's newest checkpoint. */
  @JsonProperty("checkpointStep")
  public int checkpointStep() {
    return checkpointStep;
  }

  /** The number of transcript messages at that checkpoint. */
  @JsonProperty("messageCount")
  public int messageCount() {
    return messageCount;
  }

  /** The whole conversation, when the client filled it in from the projection; otherwise null. */
  @JsonProperty("messages")
  public List<Message> messages() {
    return messages;
  }

  /**
   * True on an answer given because the session continued as new while the caller waited; otherwise
   * null.
   */
  @JsonProperty("continued")
  public Boolean continued() {
    return continued;
  }

  /**
   * Characters of tool-call arguments and results (as the workflow estimates them) that a run's
   * result carries, well under Temporal's 2 MB payload limit: a run's calls are in every answer to
   * a sender and in the state carried over continue-as-new, so they must not grow with the run.
   */
  public static final int MAX_TOOL_CALL_CHARS = 256 * 1024;

  /**
   * A copy carrying the whole conversation, with the arguments and results of omitted tool calls
   * read back from it.
   */
  public RunResult withMessages(List<Message> conversation) {
    return new RunResult(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        restoreOmitted(toolCalls, conversation),
        approval,
        error,
        checkpointStep,
        messageCount,
        conversation,
        continued);
  }

  /** {@code calls} with each omitted one completed from the latest messages that hold its id. */
  private static List<ToolCallRecord> restoreOmitted(
      List<ToolCallRecord> calls, List<Message> conversation) {
    if (conversation == null || calls.stream().noneMatch(ToolCallRecord::isOmitted)) {
      return calls;
    }
    Map<String, ToolCall> asked = new HashMap<>();
    Map<String, JsonNode> results = new HashMap<>();
    for (Message message : conversation) {
      for (ToolCall call : message.toolCalls()) {
        asked.put(call.id(), call);
      }
      if (message.role() == Role.TOOL && message.toolCallId() != null) {
        results.put(message.toolCallId(), message.result());
      }
    }
    List<ToolCallRecord> restored = new ArrayList<>(calls.size());
    for (ToolCallRecord call : calls) {
      ToolCall request = asked.get(call.id());
      if (call.isOmitted() && request != null && results.containsKey(call.id())) {
        restored.add(
            new ToolCallRecord(
                call.id(), call.name(), request.arguments(), results.get(call.id())));
      } else {
        restored.add(call);
      }
    }
    return restored;
  }

  /** True when the caller should attach again: the session continued as new meanwhile. */
  public boolean isContinued() {
    return Boolean.TRUE.equals(continued);
  }

  /** A copy marked as answered at a continue-as-new boundary. */
  public RunResult markContinued() {
    return new RunResult(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        toolCalls,
        approval,
        error,
        checkpointStep,
        messageCount,
        messages,
        Boolean.TRUE);
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof RunResult that)) {
      return false;
    }
    return Objects.equals(sessionId, that.sessionId)
        && run == that.run
        && Objects.equals(status, that.status)
        && Objects.equals(finishReason, that.finishReason)
        && Objects.equals(text, that.text)
        && Objects.equals(output, that.output)
        && steps == that.steps
        && Objects.equals(usage, that.usage)
        && Objects.equals(toolCalls, that.toolCalls)
        && Objects.equals(approval, that.approval)
        && Objects.equals(error, that.error)
        && checkpointStep == that.checkpointStep
        && messageCount == that.messageCount
        && Objects.equals(messages, that.messages)
        && Objects.equals(continued, that.continued);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        sessionId,
        run,
        status,
        finishReason,
        text,
        output,
        steps,
        usage,
        toolCalls,
        approval,
        error,
        checkpointStep,
        messageCount,
        messages,
        continued);
  }

  @Override
  public String toString() {
    return "RunResult[sessionId="
        + sessionId
        + ", run="
        + run
        + ", status="
        + status
        + ", finishReason="
        + finishReason
        + ", text="
        + text
        + ", output="
        + output
        + ", steps="
        + steps
        + ", usage="
        + usage
        + ", toolCalls="
        + toolCalls
        + ", approval="
        + approval
        + ", error="
        + error
        + ", checkpointStep="
        + checkpointStep
        + ", messageCount="
        + messageCount
        + ", messages="
        + messages
        + ", continued="
        + continued
        + "]";
  }

  /** Builds a {@link RunResult}; unset values are null, zero or false. */
  public static final class Builder {
    private String sessionId;
    private int run;
    private RunStatus status;
    private String finishReason;
    private String text;
    private JsonNode output;
    private int steps;
    private Usage usage;
    private List<ToolCallRecord> toolCalls;
    private Approval approval;
    private ErrorInfo error;
    private int checkpointStep;
    private int messageCount;
    private List<Message> messages;
    private Boolean continued;

    private Builder() {}

    private Builder(RunResult value) {
      this.sessionId = value.sessionId;
      this.run = value.run;
      this.status = value.status;
      this.finishReason = value.finishReason;
      this.text = value.text;
      this.output = value.output;
      this.steps = value.steps;
      this.usage = value.usage;
      this.toolCalls = value.toolCalls;
      this.approval = value.approval;
      this.error = value.error;
      this.checkpointStep = value.checkpointStep;
      this.messageCount = value.messageCount;
      this.messages = value.messages;
      this.continued = value.continued;
    }

    /** Sets {@link RunResult#sessionId()}. */
    public Builder setSessionId(String sessionId) {
      this.sessionId = sessionId;
      return this;
    }

    /** Sets {@link RunResult#run()}. */
    public Builder setRun(int run) {
      this.run = run;
      return this;
    }

    /** Sets {@link RunResult#status()}. */
    public Builder setStatus(RunStatus status) {
      this.status = status;
      return this;
    }

    /** Sets {@link RunResult#finishReason()}. */
    public Builder setFinishReason(String finishReason) {
      this.finishReason = finishReason;
      return this;
    }

    /** Sets {@link RunResult#text()}. */
    public Builder setText(String text) {
      this.text = text;
      return this;
    }

    /** Sets {@link RunResult#output()}. */
    public Builder setOutput(JsonNode output) {
      this.output = output;
      return this;
    }

    /** Sets {@link RunResult#steps()}. */
    public Builder setSteps(int steps) {
      this.steps = steps;
      return this;
    }

    /** Sets {@link RunResult#usage()}. */
    public Builder setUsage(Usage usage) {
      this.usage = usage;
      return this;
    }

    /** Sets {@link RunResult#toolCalls()}. */
    public Builder setToolCalls(List<ToolCallRecord> toolCalls) {
      this.toolCalls = toolCalls;
      return this;
    }

    /** Sets {@link RunResult#approval()}. */
    public Builder setApproval(Approval approval) {
      this.approval = approval;
      return this;
    }

    /** Sets {@link RunResult#error()}. */
    public Builder setError(ErrorInfo error) {
      this.error = error;
      return this;
    }

    /** Sets {@link RunResult#checkpointStep()}. */
    public Builder setCheckpointStep(int checkpointStep) {
      this.checkpointStep = checkpointStep;
      return this;
    }

    /** Sets {@link RunResult#messageCount()}. */
    public Builder setMessageCount(int messageCount) {
      this.messageCount = messageCount;
      return this;
    }

    /** Sets {@link RunResult#messages()}. */
    public Builder setMessages(List<Message> messages) {
      this.messages = messages;
      return this;
    }

    /** Sets {@link RunResult#continued()}. */
    public Builder setContinued(Boolean continued) {
      this.continued = continued;
      return this;
    }

    /** The value. */
    public RunResult build() {
      return new RunResult(
          sessionId,
          run,
          status,
          finishReason,
          text,
          output,
          steps,
          usage,
          toolCalls,
          approval,
          error,
          checkpointStep,
          messageCount,
          messages,
          continued);
    }
  }
}
