package io.durableagents.workflow;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import java.util.List;
import java.util.Objects;

/**
 * What started a run when it was not a chat message: a webhook, a schedule, an email. The model
 * sees a JSON block of {@code {source, trigger, payload}} (plus the attachments as file parts); the
 * whole envelope ({@code id, keys, thread, receivedAt} included) is available to tools through
 * their context.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public final class TriggerEnvelope {
  private final String id;
  private final String source;
  private final String trigger;
  private final JsonNode payload;
  private final JsonNode keys;
  private final String thread;
  private final long receivedAt;
  private final List<Attachment> attachments;

  @JsonCreator
  private TriggerEnvelope(
      @JsonProperty("id") String id,
      @JsonProperty("source") String source,
      @JsonProperty("trigger") String trigger,
      @JsonProperty("payload") JsonNode payload,
      @JsonProperty("keys") JsonNode keys,
      @JsonProperty("thread") String thread,
      @JsonProperty("receivedAt") long receivedAt,
      @JsonProperty("attachments") List<Attachment> attachments) {
    attachments = attachments == null ? List.of() : List.copyOf(attachments);
    this.id = id;
    this.source = source;
    this.trigger = trigger;
    this.payload = payload;
    this.keys = keys;
    this.thread = thread;
    this.receivedAt = receivedAt;
    this.attachments = attachments;
  }

  /** A builder of a new {@code TriggerEnvelope}. */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder that starts from this value. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The trigger's id, unique per source (a webhook delivery id, a schedule's firing). */
  @JsonProperty("id")
  public String id() {
    return id;
  }

  /** Where it came from (e.g. {@code github}, {@code cron}). */
  @JsonProperty("source")
  public String source() {
    return source;
  }

  /** What happened there (e.g. {@code issue.opened}). */
  @JsonProperty("trigger")
  public String trigger() {
    return trigger;
  }

  /** What the source sent. */
  @JsonProperty("payload")
  public JsonNode payload() {
    return payload;
  }

  /** Keys the source names the event by, or null. */
  @JsonProperty("keys")
  public JsonNode keys() {
    return keys;
  }

  /** The conversation thread the event belongs to, or null. */
  @JsonProperty("thread")
  public String thread() {
    return thread;
  }

  /** Epoch milliseconds */
  @JsonProperty("receivedAt")
  public long receivedAt() {
    return receivedAt;
  }

  /** Files that came with the event. */
  @JsonProperty("attachments")
  public List<Attachment> attachments() {
    return attachments;
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The user message the model sees: a fenced JSON block of source, trigger and payload. */
  public Message toMessage() {
    ObjectNode block = JSON.createObjectNode();
    block.put("source", source);
    block.put("trigger", trigger);
    block.set("payload", payload);
    try {
      String text =
          "```json\n" + JSON.writerWithDefaultPrettyPrinter().writeValueAsString(block) + "\n```";
      return new Message(Role.USER, text, null, null, null, null, attachments);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot render the trigger envelope", e);
    }
  }

  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof TriggerEnvelope that)) {
      return false;
    }
    return Objects.equals(id, that.id)
        && Objects.equals(source, that.source)
        && Objects.equals(trigger, that.trigger)
        && Objects.equals(payload, that.payload)
        && Objects.equals(keys, that.keys)
        && Objects.equals(thread, that.thread)
        && receivedAt == that.receivedAt
        && Objects.equals(attachments, that.attachments);
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, source, trigger, payload, keys, thread, receivedAt, attachments);
  }

  @Override
  public String toString() {
    return "TriggerEnvelope[id="
        + id
        + ", source="
        + source
        + ", trigger="
        + trigger
        + ", payload="
        + payload
        + ", keys="
        + keys
        + ", thread="
        + thread
        + ", receivedAt="
        + receivedAt
        + ", attachments="
        + attachments
        + "]";
  }

  /** Builds a {@link TriggerEnvelope}; unset values are null, zero or false. */
  public static final class Builder {
    private String id;
    private String source;
    private String trigger;
    private JsonNode payload;
    private JsonNode keys;
    private String thread;
    private long receivedAt;
    private List<Attachment> attachments;

    private Builder() {}

    private Builder(TriggerEnvelope value) {
      this.id = value.id;
      this.source = value.source;
      this.trigger = value.trigger;
      this.payload = value.payload;
      this.keys = value.keys;
      this.thread = value.thread;
      this.receivedAt = value.receivedAt;
      this.attachments = value.attachments;
    }

    /** Sets {@link TriggerEnvelope#id()}. */
    public Builder setId(String id) {
      this.id = id;
      return this;
    }

    /** Sets {@link TriggerEnvelope#source()}. */
    public Builder setSource(String source) {
      this.source = source;
      return this;
    }

    /** Sets {@link TriggerEnvelope#trigger()}. */
    public Builder setTrigger(String trigger) {
      this.trigger = trigger;
      return this;
    }

    /** Sets {@link TriggerEnvelope#payload()}. */
    public Builder setPayload(JsonNode payload) {
      this.payload = payload;
      return this;
    }

    /** Sets {@link TriggerEnvelope#keys()}. */
    public Builder setKeys(JsonNode keys) {
      this.keys = keys;
      return this;
    }

    /** Sets {@link TriggerEnvelope#thread()}. */
    public Builder setThread(String thread) {
      this.thread = thread;
      return this;
    }

    /** Sets {@link TriggerEnvelope#receivedAt()}. */
    public Builder setReceivedAt(long receivedAt) {
      this.receivedAt = receivedAt;
      return this;
    }

    /** Sets {@link TriggerEnvelope#attachments()}. */
    public Builder setAttachments(List<Attachment> attachments) {
      this.attachments = attachments;
      return this;
    }

    /** The value. */
    public TriggerEnvelope build() {
      return new TriggerEnvelope(
          id, source, trigger, payload, keys, thread, receivedAt, attachments);
    }
  }
}
