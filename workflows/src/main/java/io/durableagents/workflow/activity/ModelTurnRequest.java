package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.Message;
import java.util.List;

/**
 * One model turn, by reference: the model reads the first {@code storedMessages} messages of the
 * session from the transcript store (as saved by checkpoint {@code afterStep}) and appends
 * {@code newMessages}, the messages not saved yet (the new user input). The transcript itself
 * never travels in a Temporal payload.
 *
 * <p>{@code checkpoint}, when present, is a save the workflow folded into this turn: the activity
 * writes it (idempotently) before it reads the transcript, so the save costs no activity of its
 * own. {@code storedMessages} already counts its messages.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ModelTurnRequest(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("afterStep") int afterStep,
    @JsonProperty("storedMessages") int storedMessages,
    @JsonProperty("newMessages") List<Message> newMessages,
    @JsonProperty("checkpoint") CheckpointSave checkpoint) {

  public ModelTurnRequest {
    newMessages = newMessages == null ? List.of() : List.copyOf(newMessages);
  }

  public ModelTurnRequest(
      String sessionId,
      String agent,
      int run,
      int step,
      int afterStep,
      int storedMessages,
      List<Message> newMessages) {
    this(sessionId, agent, run, step, afterStep, storedMessages, newMessages, null);
  }
}
