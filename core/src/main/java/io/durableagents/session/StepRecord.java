package io.durableagents.session;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.durableagents.conversation.Usage;

/**
 * One step of a run as the projection records it: a model turn, a tool call or a compaction of the
 * model's view, with the wall-clock times the worker measured around it (epoch milliseconds, UTC;
 * null when unknown, as in entries of older versions or a call that timed out before it reported),
 * its error, and for a model turn its token usage. A failed model turn keeps in {@code text} what
 * the model streamed before the failure.
 *
 * @param kind {@link #MODEL}, {@link #TOOL} or {@link #COMPACTION}
 * @param name the model's name for a model turn, the tool's name for a tool call, the policies that
 *     shortened the model's view for a compaction
 * @param startedAt when the worker started the step
 * @param finishedAt when the worker finished it
 * @param usage the tokens of a model turn ({@link Usage#ZERO} for a tool call)
 * @param error {@code code: message} of a failed model turn, the error code of a tool's error
 *     result; null when the step succeeded
 * @param text what a failed model turn streamed before it failed; what a compaction replaced and
 *     the estimated tokens before and after; null otherwise
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StepRecord(
    @JsonProperty("kind") String kind,
    @JsonProperty("name") String name,
    @JsonProperty("startedAt") Long startedAt,
    @JsonProperty("finishedAt") Long finishedAt,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("error") String error,
    @JsonProperty("text") String text) {

  /** The kind of a model turn. */
  public static final String MODEL = "model";

  /** The kind of a tool call. */
  public static final String TOOL = "tool";

  /**
   * The kind of a compaction: the model turn of the same entry saw a shortened view of the
   * conversation (see docs/context.md); the transcript keeps every message.
   */
  public static final String COMPACTION = "compaction";

  /** A step; a null {@code usage} is {@link Usage#ZERO}. */
  public StepRecord {
    usage = usage == null ? Usage.ZERO : usage;
  }

  /** How long the step took in milliseconds; null when either time is unknown. */
  public Long durationMs() {
    return startedAt == null || finishedAt == null ? null : Math.max(0, finishedAt - startedAt);
  }
}
