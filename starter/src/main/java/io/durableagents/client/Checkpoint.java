package io.durableagents.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import java.util.List;

/**
 * A full checkpoint as the projection keeps it: where a session stood after one step.
 *
 * @param stepIndex the step the checkpoint was saved after (a model turn or a tool batch)
 * @param run the run the step belongs to
 * @param status the session's status at that step ({@code in-progress}, {@code awaiting-approval},
 *     {@code finished}, {@code failed}, {@code cancelled})
 * @param finishReason why the step ended, or null
 * @param messages the whole conversation at that step, in order
 * @param businessState the JSON state the tools keep, or null
 * @param usage token totals of the session at that step
 * @param fingerprint the agent definition's fingerprint, or null
 * @param savedAt epoch milliseconds (UTC) of the save
 * @param runConfig the run configuration of the step's run, or null when it had none
 * @param drift what changed in the agent's definition since the run recorded it, when a worker
 *     under another definition ran the run (its {@code onAgentDrift} policy {@code warn}); null
 *     when none was seen
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Checkpoint(
    @JsonProperty("sessionId") String sessionId,
    @JsonProperty("stepIndex") int stepIndex,
    @JsonProperty("run") int run,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("savedAt") long savedAt,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("drift") String drift) {

  /** A checkpoint of a run without configuration or drift. */
  public Checkpoint(
      String sessionId,
      int stepIndex,
      int run,
      RunStatus status,
      String finishReason,
      List<Message> messages,
      JsonNode businessState,
      Usage usage,
      String fingerprint,
      long savedAt) {
    this(
        sessionId,
        stepIndex,
        run,
        status,
        finishReason,
        messages,
        businessState,
        usage,
        fingerprint,
        savedAt,
        null,
        null);
  }

  public Checkpoint {
    messages = messages == null ? List.of() : List.copyOf(messages);
    usage = usage == null ? Usage.ZERO : usage;
  }
}
