package io.durableagents.conversation;

/**
 * Why a step or a run ended; the strings are the JSON contract. Strings, not an enum: a model
 * provider may report reasons of its own (such as {@code content-filter}), which a run passes on.
 */
public final class FinishReason {
  /** The model answered without calling a tool. */
  public static final String STOP = "stop";

  /** The model called tools; the loop goes on after the batch. */
  public static final String TOOL_CALLS = "tool-calls";

  /** The model hit its output limit. */
  public static final String LENGTH = "length";

  /** The run used every model turn its {@code maxSteps} budget allows. */
  public static final String MAX_STEPS = "max-steps";

  /** The run used the input + output tokens its {@code maxTokens} budget allows. */
  public static final String MAX_TOKENS = "max-tokens";

  /** The run hit its wall-clock {@code runTimeout}. */
  public static final String TIMEOUT = "timeout";

  /** The run paused on a gated tool call. */
  public static final String AWAITING_APPROVAL = "awaiting-approval";

  /** The run was cancelled. */
  public static final String CANCELLED = "cancelled";

  /** The model call failed. */
  public static final String ERROR = "error";

  /**
   * The entry where a failed or cancelled run resumed, because a send repeated its input: no step
   * ended there, the run goes on.
   */
  public static final String RESUMED = "resumed";

  private FinishReason() {}
}
