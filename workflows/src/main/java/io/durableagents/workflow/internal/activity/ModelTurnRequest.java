package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.conversation.Message;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.ArrayList;
import java.util.List;

/**
 * One model turn, by reference: the model reads the first {@code storedMessages} messages of the
 * session from the transcript store (as saved by checkpoint {@code afterStep}) and appends {@code
 * newMessages}, the messages not saved yet (the new user input). The transcript itself never
 * travels in a Temporal payload.
 *
 * <p>{@code saves}: the checkpoint entries the workflow folded into this turn and what to do with
 * them before the transcript is read (see {@link TurnSaves}); {@code storedMessages} already counts
 * their messages. They are sent compact, completed from this request's session, {@code
 * executionId}, agent and {@code fingerprint} (see {@link #foldedSaves()}).
 *
 * <p>{@code executionId} (the session workflow's first run id) and {@code transcriptHash} (the
 * {@link io.durableagents.workflow.internal.wire.TranscriptHash} chain over the stored messages
 * followed by {@code newMessages}) let a worker keep the transcript of a session's last turn and
 * use it for the next instead of reading the store.
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
    @JsonProperty("transcriptHash") String transcriptHash,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("saves") TurnSaves saves) {

  public ModelTurnRequest {
    newMessages = newMessages == null ? List.of() : List.copyOf(newMessages);
    saves = saves == null ? TurnSaves.none() : saves;
  }

  /**
   * The entries the request carries, in order, each completed with the fields a {@link
   * CheckpointSave#compact() compact} one leaves to the request.
   */
  @JsonIgnore
  public List<CheckpointSave> foldedSaves() {
    List<CheckpointSave> completed = new ArrayList<>(saves.entries().size());
    for (CheckpointSave save : saves.entries()) {
      completed.add(save.completedWith(sessionId, executionId, agent, fingerprint));
    }
    return completed;
  }
}
