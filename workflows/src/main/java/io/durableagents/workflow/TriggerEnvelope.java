package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import java.util.List;

/**
 * What started a run when it was not a chat message: a webhook, a schedule, an email. The model
 * sees a JSON block of {@code {source, trigger, payload}} (plus the attachments as file parts); the
 * whole envelope ({@code id, keys, thread, receivedAt} included) is available to tools through
 * their context.
 *
 * @param receivedAt epoch milliseconds
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record TriggerEnvelope(
    @JsonProperty("id") String id,
    @JsonProperty("source") String source,
    @JsonProperty("trigger") String trigger,
    @JsonProperty("payload") JsonNode payload,
    @JsonProperty("keys") JsonNode keys,
    @JsonProperty("thread") String thread,
    @JsonProperty("receivedAt") long receivedAt,
    @JsonProperty("attachments") List<Attachment> attachments) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public TriggerEnvelope {
    attachments = attachments == null ? List.of() : List.copyOf(attachments);
  }

  /** The user message the model sees: a fenced JSON block of source, trigger and payload. */
  public Message toMessage() {
    ObjectNode block = JSON.createObjectNode();
    block.put("source", source);
    block.put("trigger", trigger);
    block.set("payload", payload);
    try {
      String text =
          "```json\n" + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(block) + "\n```";
      return new Message(Message.USER, text, null, null, null, null, attachments);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render the trigger envelope", e);
    }
  }
}
