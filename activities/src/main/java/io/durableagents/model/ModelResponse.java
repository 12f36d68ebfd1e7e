package io.durableagents.model;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A complete model answer: text, tool calls, the provider's finish reason and usage.
 *
 * <p>The model activity accepts an answer only if {@link #problems()} is empty; otherwise the run
 * fails with {@code model_response_invalid}, not retried (the same answer would come back). Valid:
 * every tool call present and named, its arguments a JSON object (or absent, which is {@code {}},
 * or a string: the model's raw text when it wrote no JSON object, which the tool's validation
 * answers with {@code invalid_arguments}), no two calls with the same id (a call without one gets
 * {@code call_<step>_<index>}), token counts not negative and their sum within a {@code long}.
 */
public record ModelResponse(
    String text, List<ToolCall> toolCalls, String finishReason, Usage usage) {
  /**
   * Null tool calls become an empty list and null usage {@link Usage#ZERO}; nothing is refused
   * here.
   */
  public ModelResponse {
    // Kept as given (nulls included) for problems() to report, never to fail here.
    toolCalls =
        toolCalls == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(toolCalls));
    usage = usage == null ? Usage.ZERO : usage;
  }

  /** What makes this answer unusable, one line each, naming the call or field; empty when valid. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    Map<String, Integer> ids = new HashMap<>();
    for (int i = 0; i < toolCalls.size(); i++) {
      ToolCall call = toolCalls.get(i);
      if (call == null) {
        problems.add("tool call " + i + " is null");
        continue;
      }
      String which = "tool call " + i + (blank(call.id()) ? "" : " (id " + quote(call.id()) + ")");
      if (blank(call.name())) {
        problems.add(which + " has no tool name");
      }
      JsonNode arguments = call.arguments();
      if (arguments != null
          && !arguments.isNull()
          && !arguments.isObject()
          && !arguments.isTextual()) {
        problems.add(which + " has arguments that are " + kind(arguments) + ", not a JSON object");
      }
      if (!blank(call.id())) {
        Integer earlier = ids.putIfAbsent(call.id(), i);
        if (earlier != null) {
          problems.add(
              "tool calls " + earlier + " and " + i + " have the same id " + quote(call.id()));
        }
      }
    }
    if (usage.inputTokens() < 0) {
      problems.add(
          "usage.inputTokens is " + usage.inputTokens() + ": a token count cannot be negative");
    }
    if (usage.outputTokens() < 0) {
      problems.add(
          "usage.outputTokens is " + usage.outputTokens() + ": a token count cannot be negative");
    }
    if (usage.inputTokens() >= 0
        && usage.outputTokens() >= 0
        && usage.inputTokens() > Long.MAX_VALUE - usage.outputTokens()) {
      problems.add("usage.inputTokens + usage.outputTokens overflow a 64-bit count");
    }
    return problems;
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }

  private static String kind(JsonNode node) {
    return node.isArray()
        ? "an array"
        : node.isBoolean() ? "a boolean" : node.isNumber() ? "a number" : "not an object";
  }

  /** A value of the provider's, quoted and cut short: a hostile answer does not flood the error. */
  static String quote(String value) {
    return "'" + (value.length() <= 64 ? value : value.substring(0, 64) + "...") + "'";
  }
}
