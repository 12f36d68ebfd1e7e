package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.activity.AgentSpec;
import java.util.List;

/**
 * The session's last run when it failed or was cancelled with its budgets not used up: a send that
 * repeats its input resumes it. Its counters are in the session's last result; this holds the rest
 * of what it resumes with.
 *
 * @param run the run's number, which the resumed run keeps
 * @param inputs the messages the run started from, which a resuming send repeats
 * @param idempotencyKey the idempotency key of the send that started it (null: none)
 * @param settledAt workflow time of the run's end, in epoch milliseconds
 * @param spec the definition the run resolved (null: it failed before it resolved one)
 * @param runConfig the run's configuration (null: none)
 * @param trigger the envelope that started the run, if a trigger did
 * @param drift what changed in the agent's definition since the run recorded it (null: none)
 * @param timeSpentMs wall-clock time the run spent of its {@code runTimeout}
 * @param concurrencyKey the run's concurrency key (null: none), whose lease it queues for again
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record UnfinishedRun(
    @JsonProperty("run") int run,
    @JsonProperty("inputs") List<Message> inputs,
    @JsonProperty("idempotencyKey") String idempotencyKey,
    @JsonProperty("settledAt") long settledAt,
    @JsonProperty("spec") AgentSpec spec,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("trigger") TriggerEnvelope trigger,
    @JsonProperty("drift") String drift,
    @JsonProperty("timeSpentMs") long timeSpentMs,
    @JsonProperty("concurrencyKey") String concurrencyKey) {

  public UnfinishedRun {
    inputs = inputs == null ? List.of() : List.copyOf(inputs);
  }
}
