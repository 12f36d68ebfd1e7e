package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Input of the {@code send} update: a text, a list of messages, or a trigger envelope. A list that
 * starts with the session's whole stored conversation is recognised: only the messages after it are
 * new. Input with neither starts no turn: it attaches to the run in progress, or returns the last
 * run's result.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SendRequest(
    @JsonProperty("input") String input,
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("trigger") TriggerEnvelope trigger) {

  public SendRequest {
    messages = messages == null ? List.of() : List.copyOf(messages);
  }

  public SendRequest(String input, List<Message> messages) {
    this(input, messages, null);
  }

  public SendRequest(String input) {
    this(input, List.of(), null);
  }

  public static SendRequest ofMessages(List<Message> messages) {
    return new SendRequest(null, messages, null);
  }

  /** A run started by a trigger (see {@link TriggerEnvelope}). */
  public static SendRequest ofTrigger(TriggerEnvelope trigger) {
    return new SendRequest(null, List.of(), trigger);
  }

  public boolean isEmpty() {
    return (input == null || input.isEmpty()) && messages.isEmpty() && trigger == null;
  }
}
