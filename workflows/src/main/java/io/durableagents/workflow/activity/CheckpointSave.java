package io.durableagents.workflow.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.Usage;
import java.util.List;

/**
 * One checkpoint save: a history entry {@code step} plus only the messages that are new since the
 * previous save, placed at {@code firstSeq}. Keyed by (session, step) and (session, seq), so a
 * retried save neither duplicates nor reorders anything.
 *
 * @param executionId the first run id of the session workflow; a different one means the
 *     session id was reused by a new workflow and the old rows are replaced
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CheckpointSave(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("executionId") String executionId,
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("step") int step,
    @JsonProperty("status") String status,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("firstSeq") int firstSeq,
    @JsonProperty("newMessages") List<Message> newMessages,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("savedAt") long savedAt) {

  public CheckpointSave {
    newMessages = newMessages == null ? List.of() : List.copyOf(newMessages);
  }

  /** Number of messages in the transcript once this save is applied. */
  public int messageCount() {
    return firstSeq + newMessages.size();
  }
}
