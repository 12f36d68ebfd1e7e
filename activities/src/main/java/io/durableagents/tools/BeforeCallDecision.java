package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * What a {@link ToolHook} decides before a call runs: {@link #allow()} it, {@link #deny(String)} it
 * with a reason the model sees, or {@link #rewrite(JsonNode)} its arguments.
 */
public final class BeforeCallDecision {
  private static final BeforeCallDecision ALLOW = new BeforeCallDecision(null, null);

  private final String denialReason;
  private final JsonNode arguments;

  private BeforeCallDecision(String denialReason, JsonNode arguments) {
    this.denialReason = denialReason;
    this.arguments = arguments;
  }

  /** The call goes on with its arguments as they are. */
  public static BeforeCallDecision allow() {
    return ALLOW;
  }

  /**
   * The call does not run; its result is {@code {"error": "tool_denied", "hook": ..., "message":
   * reason}}, which the model sees, and the run goes on.
   */
  public static BeforeCallDecision deny(String reason) {
    Objects.requireNonNull(reason, "reason");
    return new BeforeCallDecision(reason, null);
  }

  /**
   * The call goes on with {@code arguments} in place of its own; they must pass the tool's schema,
   * or the call's result is {@code invalid_arguments} naming the hook.
   */
  public static BeforeCallDecision rewrite(JsonNode arguments) {
    Objects.requireNonNull(arguments, "arguments");
    return new BeforeCallDecision(null, arguments.deepCopy());
  }

  /** Whether the call was denied. */
  public boolean isDenied() {
    return denialReason != null;
  }

  /** The reason of a denial, or null. */
  public String denialReason() {
    return denialReason;
  }

  /** The arguments of a rewrite, or null. */
  public JsonNode rewrittenArguments() {
    return arguments;
  }

  @Override
  public String toString() {
    return denialReason != null
        ? "deny(" + denialReason + ")"
        : arguments != null ? "rewrite(" + arguments + ")" : "allow()";
  }
}
