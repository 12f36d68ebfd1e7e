package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.List;

/**
 * What one model turn does with the checkpoint entries the workflow folded into it, before it reads
 * the transcript. The entries travel {@link CheckpointSave#compact() compact}: the request carries
 * the session, execution, agent and fingerprint they share once.
 *
 * <ul>
 *   <li>{@link Write}: write the entries (one transaction), then read the transcript.
 *   <li>{@link Hold}: write nothing; continue this worker's remembered transcript with the entries
 *       and keep them until a later turn writes them. A worker that does not remember the
 *       transcript fails the turn with {@code held_saves_unknown}.
 *   <li>{@link WriteHeld}: write the entries this worker held for the session (those of {@code
 *       heldSteps}, remembered from the turns that carried them), then the new ones, in one
 *       transaction. A worker that does not hold exactly those fails with {@link
 *       ModelTurnRequest#HELD_SAVES_UNKNOWN}.
 * </ul>
 *
 * After a {@code HELD_SAVES_UNKNOWN} the workflow sends the turn again as a {@link Write} of every
 * entry not yet written.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
@JsonSubTypes({
  @JsonSubTypes.Type(value = TurnSaves.Write.class, name = "write"),
  @JsonSubTypes.Type(value = TurnSaves.Hold.class, name = "hold"),
  @JsonSubTypes.Type(value = TurnSaves.WriteHeld.class, name = "writeHeld")
})
public sealed interface TurnSaves {
  /** The entries this request carries, in order (the held ones of a {@link WriteHeld} excluded). */
  List<CheckpointSave> entries();

  /** A turn that has nothing to write. */
  static TurnSaves none() {
    return new Write(List.of());
  }

  /** Write {@code entries}, then read the transcript. */
  record Write(@JsonProperty("entries") List<CheckpointSave> entries) implements TurnSaves {
    public Write {
      entries = entries == null ? List.of() : List.copyOf(entries);
    }
  }

  /** Leave {@code entries} unwritten, held by this worker. */
  record Hold(@JsonProperty("entries") List<CheckpointSave> entries) implements TurnSaves {
    public Hold {
      entries = entries == null ? List.of() : List.copyOf(entries);
    }
  }

  /** Write the entries of {@code heldSteps} this worker held, then {@code entries}. */
  record WriteHeld(
      @JsonProperty("heldSteps") List<Integer> heldSteps,
      @JsonProperty("entries") List<CheckpointSave> entries)
      implements TurnSaves {
    public WriteHeld {
      heldSteps = heldSteps == null ? List.of() : List.copyOf(heldSteps);
      entries = entries == null ? List.of() : List.copyOf(entries);
    }
  }

  /** True for a {@link Hold}: the turn writes nothing. */
  @JsonIgnore
  default boolean holds() {
    return this instanceof Hold;
  }
}
