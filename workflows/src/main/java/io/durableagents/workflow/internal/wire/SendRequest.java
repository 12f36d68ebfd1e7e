package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.workflow.TriggerEnvelope;
import java.util.List;

/**
 * Input of the {@code send} update: a text, a list of messages, or a trigger envelope. A list that
 * starts with the session's whole stored conversation is recognised: only the messages after it are
 * new. Input with neither starts no turn: it attaches to the run in progress, or returns the last
 * run's result.
 *
 * <p>{@code runConfig}: the run configuration of the run this send starts (a JSON object, e.g. a
 * customer tier), saved with the run and handed to a dynamic agent's factory. A send that reaches a
 * run in progress does not change that run's configuration.
 *
 * <p>{@code idempotencyKey} and {@code resumeWindowMs}: when the last run failed or was cancelled
 * and this send repeats its input, the run resumes instead of a new one starting, if the send
 * repeats the key of the send that started the run, or arrives within {@code resumeWindowMs} of the
 * run's end (null: the session's default; 0: only by key). Both absent in sends of older clients.
 *
 * <p>{@code concurrencyKey}: the concurrency key of the run this send starts (null: the agent's
 * default, if it has one): runs that share a key run one at a time, across sessions. Like the run
 * configuration, it does not change a run in progress.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SendRequest(
    @JsonProperty("input") String input,
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("trigger") TriggerEnvelope trigger,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("idempotencyKey") String idempotencyKey,
    @JsonProperty("resumeWindowMs") Long resumeWindowMs,
    @JsonProperty("concurrencyKey") String concurrencyKey) {

  public SendRequest {
    messages = messages == null ? List.of() : List.copyOf(messages);
  }

  public SendRequest(
      String input, List<Message> messages, TriggerEnvelope trigger, JsonNode runConfig) {
    this(input, messages, trigger, runConfig, null, null, null);
  }

  public SendRequest(String input, List<Message> messages, TriggerEnvelope trigger) {
    this(input, messages, trigger, null);
  }

  public SendRequest(String input, List<Message> messages) {
    this(input, messages, null, null);
  }

  public SendRequest(String input) {
    this(input, List.of(), null, null);
  }

  public static SendRequest ofMessages(List<Message> messages) {
    return new SendRequest(null, messages, null, null);
  }

  /** A run started by a trigger (see {@link TriggerEnvelope}). */
  public static SendRequest ofTrigger(TriggerEnvelope trigger) {
    return new SendRequest(null, List.of(), trigger);
  }

  /** This send with {@code config} as the run configuration of the run it starts. */
  public SendRequest withRunConfig(JsonNode config) {
    return new SendRequest(
        input, messages, trigger, config, idempotencyKey, resumeWindowMs, concurrencyKey);
  }

  /** This send with {@code key} as the concurrency key of the run it starts. */
  public SendRequest withConcurrencyKey(String key) {
    return new SendRequest(
        input, messages, trigger, runConfig, idempotencyKey, resumeWindowMs, key);
  }

  /**
   * This send with {@code key} as its idempotency key and {@code windowMs} as its resume window
   * (null: the session's default).
   */
  public SendRequest withResume(String key, Long windowMs) {
    return new SendRequest(input, messages, trigger, runConfig, key, windowMs, concurrencyKey);
  }

  public boolean isEmpty() {
    return (input == null || input.isEmpty()) && messages.isEmpty() && trigger == null;
  }
}
