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
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HistoryEntry(
    @JsonProperty("step") int step,
    @JsonProperty("savedAt") long savedAt,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("checkpoint") Checkpoint checkpoint) {}
