package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.session.RunStatus;

/**
 * One entry of a session's checkpoint history: one per save, after every model turn and every tool
 * batch; saving a step again replaces its entry.
 *
 * @param step the checkpoint's {@code stepIndex}
 * @param savedAt epoch milliseconds (UTC)
 * @param status the checkpoint's status
 * @param checkpoint the full checkpoint, transcript included
 * @param supersededBy the reset that moved the session back before this entry (e.g. {@code reset to
 *     step 2 at 2026-12-04T01:30:00Z}), or null while the entry is on the session's current line; a
 *     superseded entry keeps its transcript, but can be neither forked nor reset to
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HistoryEntry(
    @JsonProperty("step") int step,
    @JsonProperty("savedAt") long savedAt,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("checkpoint") Checkpoint checkpoint,
    @JsonProperty("supersededBy") String supersededBy) {

  /** An entry on the session's current line. */
  public HistoryEntry(int step, long savedAt, RunStatus status, Checkpoint checkpoint) {
    this(step, savedAt, status, checkpoint, null);
  }

  /** Whether a reset superseded this entry. */
  public boolean superseded() {
    return supersededBy != null;
  }
}
