package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Input of the {@code send} update: a text, or a list of messages. A list that starts with the
 * session's whole stored conversation is recognised: only the messages after it are new. Input
 * with neither starts no turn: it attaches to the run in progress, or returns the last run's
 * result.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record SendRequest(
    @JsonProperty("input") String input, @JsonProperty("messages") List<Message> messages) {

  public SendRequest {
    messages = messages == null ? List.of() : List.copyOf(messages);
  }

  public SendRequest(String input) {
    this(input, List.of());
  }

  public static SendRequest ofMessages(List<Message> messages) {
    return new SendRequest(null, messages);
  }

  public boolean isEmpty() {
    return (input == null || input.isEmpty()) && messages.isEmpty();
  }
}
