package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * One model turn, by reference: the model reads the first {@code storedMessages} messages of the
 * session from the transcript store (as saved by checkpoint {@code afterStep}) and appends
 * {@code newMessages}, the messages not saved yet (the new user input). The transcript itself
 * never travels in a Temporal payload.
 *
 * <p>{@code checkpoint}, when present, is a save the workflow folded into this turn: the activity
 * writes it (idempotently) before it reads the transcript, so the save costs no activity of its
 * own. {@code checkpoints} are several such saves, in order, written in one transaction (a
 * request carries one field or the other). {@code storedMessages} already counts their messages.
 *
 * <p>{@code executionId} (the session workflow's first run id) and {@code transcriptHash} (the
 * {@link io.durableagents.workflow.TranscriptHash} chain over the stored messages followed by
 * {@code newMessages}) let a worker keep the transcript of a session's last turn and use it for
 * the next instead of reading the store. Absent in requests of older workflow code.
 *
 * <p>{@code holdSaves}: the turn does not write its folded saves; it continues this worker's
 * remembered transcript with them, and the worker keeps them until a later turn has it write them
 * ({@code heldSteps}), or the workflow writes them restated with a save of another kind. A worker
 * that does not remember the session's transcript fails the turn with {@link #HELD_SAVES_UNKNOWN};
 * the workflow then sends the turn again with everything it held, to be written.
 *
 * <p>{@code fingerprint}: the agent fingerprint of the carried saves, which may then be sent
 * {@link CheckpointSave#compact() compact}, without the fields they share with the request. Only
 * a local model turn sends them so for now: it runs in the process that made the request, while
 * a regular activity may reach a worker of the previous version, which needs every field.
 *
 * <p>{@code heldSteps} and {@code afterHeld}: the turn writes the entries this worker held for
 * the session (those of {@code heldSteps}, which it remembers from the turns that carried them)
 * and then {@code afterHeld}, in one transaction, instead of the workflow restating the held
 * entries. Such a request also sets {@code holdSaves}, and carries its entries in a field older
 * workers do not know: a worker that cannot write the held entries, of any version, fails the
 * turn with {@link #HELD_SAVES_UNKNOWN}, and the workflow sends everything restated.
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
    @JsonProperty("checkpoint") CheckpointSave checkpoint,
    @JsonProperty("checkpoints") List<CheckpointSave> checkpoints,
    @JsonProperty("transcriptHash") String transcriptHash,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("holdSaves") Boolean holdSaves,
    @JsonProperty("heldSteps") List<Integer> heldSteps,
    @JsonProperty("afterHeld") List<CheckpointSave> afterHeld,
    @JsonProperty("fingerprint") String fingerprint) {

  /** The failure type of a turn that holds saves on a worker that cannot continue them. */
  public static final String HELD_SAVES_UNKNOWN = "held_saves_unknown";

  public ModelTurnRequest {
    holdSaves = Boolean.TRUE.equals(holdSaves) ? Boolean.TRUE : null;
    newMessages = newMessages == null ? List.of() : List.copyOf(newMessages);
    checkpoints = checkpoints == null || checkpoints.isEmpty() ? null : List.copyOf(checkpoints);
    heldSteps = heldSteps == null ? null : List.copyOf(heldSteps);
    afterHeld = afterHeld == null ? null : List.copyOf(afterHeld);
  }

  /** Whether the turn writes the entries its worker held, then {@code afterHeld} (see the class comment). */
  @JsonIgnore
  public boolean writesHeldSaves() {
    return heldSteps != null;
  }

  /** Whether the turn leaves its folded saves unwritten (see the class comment). */
  @JsonIgnore
  public boolean holdsSaves() {
    return holdSaves != null;
  }

  /**
   * The saves the request carries, in order: written before the transcript is read (after the
   * held ones when it {@link #writesHeldSaves()}), unless held. Saves sent {@link
   * CheckpointSave#compact() compact} get the request's session, execution id, agent and
   * {@code fingerprint}.
   */
  @JsonIgnore
  public List<CheckpointSave> foldedSaves() {
    List<CheckpointSave> saves = new ArrayList<>();
    if (checkpoint != null) {
      saves.add(checkpoint);
    }
    if (checkpoints != null) {
      saves.addAll(checkpoints);
    }
    if (afterHeld != null) {
      saves.addAll(afterHeld);
    }
    saves.replaceAll(save -> save.completedWith(sessionId, executionId, agent, fingerprint));
    return saves;
  }
}
