package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * What a {@link ToolHook} decides about a call's result: {@link #keep()} it, or {@link
 * #replace(JsonNode)} it, e.g. with a redacted copy, before it is recorded and the model sees it.
 */
public final class AfterCallDecision {
  private static final AfterCallDecision KEEP = new AfterCallDecision(null);

  private final JsonNode result;

  private AfterCallDecision(JsonNode result) {
    this.result = result;
  }

  /** The result stays as it is. */
  public static AfterCallDecision keep() {
    return KEEP;
  }

  /** {@code result} is recorded, and the model sees it, in place of the call's result. */
  public static AfterCallDecision replace(JsonNode result) {
    Objects.requireNonNull(result, "result");
    return new AfterCallDecision(result.deepCopy());
  }

  /** The replacing result, or null when the result is kept. */
  public JsonNode replacement() {
    return result;
  }

  @Override
  public String toString() {
    return result == null ? "keep()" : "replace(" + result + ")";
  }
}
