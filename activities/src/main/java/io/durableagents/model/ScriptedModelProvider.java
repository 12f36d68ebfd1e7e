package io.durableagents.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.activities.internal.TokenEstimate;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * A deterministic model for tests and demos, played from a script {@code {"turns": [TURN, ...]}}
 * where {@code TURN = {"text", "toolCalls": [{"name", "arguments"}], "delayMs", "error", "usage":
 * {"inputTokens", "outputTokens"}}} (all optional).
 *
 * <p>The whole script is checked when it is loaded: a field of the wrong type, an unknown field, a
 * call without a name, arguments that are not an object, a negative or non-integer count or delay
 * is an {@link IllegalArgumentException} naming the turn and the field (as in {@code
 * turns[2].toolCalls[0].name}), so a worker refuses to start with it instead of failing turns.
 *
 * <p>The turn played is the number of assistant messages already in the conversation, so a replayed
 * or retried call plays the same turn. Past the last turn it answers {@value #SCRIPT_ENDED}. Tool
 * call ids are {@code call_<turn>_<index>}.
 */
public final class ScriptedModelProvider implements ModelProvider {
  /** The text of every turn past the script's last. */
  public static final String SCRIPT_ENDED = "(script ended)";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Set<String> TURN_FIELDS =
      Set.of("text", "toolCalls", "delayMs", "error", "usage");
  private static final Set<String> CALL_FIELDS = Set.of("name", "arguments");
  private static final Set<String> USAGE_FIELDS = Set.of("inputTokens", "outputTokens");

  /** One turn, as checked at load. {@code usage} null: estimated from the conversation. */
  private record Turn(
      String text, List<ScriptedCall> calls, long delayMs, String error, Usage usage) {}

  private record ScriptedCall(String name, JsonNode arguments) {}

  private final List<Turn> turns;

  /** The tokens a request may take (0: no limit), as a real model's context window. */
  private final long contextWindow;

  private ScriptedModelProvider(List<Turn> turns, long contextWindow) {
    this.turns = List.copyOf(turns);
    this.contextWindow = contextWindow;
  }

  /**
   * This script behind a context window of {@code tokens}: a request whose estimate ({@link
   * TokenEstimate}) is larger is refused with {@code context_exceeded}, as a real model refuses it.
   * A script can set it too, as its top-level {@code contextWindow}.
   */
  public ScriptedModelProvider withContextWindow(long tokens) {
    if (tokens <= 0) {
      throw new IllegalArgumentException("contextWindow must be positive, not " + tokens);
    }
    return new ScriptedModelProvider(turns, tokens);
  }

  /**
   * Loads and checks the script at {@code path}; a malformed one names the file, turn and field.
   */
  public static ScriptedModelProvider fromFile(Path path) {
    String json;
    try {
      json = Files.readString(path);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read model script " + path + ": " + e.getMessage(), e);
    }
    try {
      return fromJson(json);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(path + ": " + e.getMessage(), e);
    }
  }

  /** Loads and checks a script given as JSON text; a malformed one names the turn and field. */
  public static ScriptedModelProvider fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Model script is not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject() || !root.path("turns").isArray()) {
      throw new IllegalArgumentException("Model script must be an object with a \"turns\" array.");
    }
    knownFields(root, Set.of("turns", "contextWindow"), "");
    List<Turn> turns = new ArrayList<>();
    for (int i = 0; i < root.get("turns").size(); i++) {
      turns.add(turn(root.get("turns").get(i), "turns[" + i + "]"));
    }
    ScriptedModelProvider provider = new ScriptedModelProvider(turns, 0);
    if (root.has("contextWindow")) {
      long window = count(root, "contextWindow", "");
      if (window <= 0) {
        throw invalid(
            "", "contextWindow must be a positive number of tokens", root.get("contextWindow"));
      }
      provider = provider.withContextWindow(window);
    }
    return provider;
  }

  private static Turn turn(JsonNode turn, String at) {
    if (!turn.isObject()) {
      throw invalid(at, "must be an object", turn);
    }
    knownFields(turn, TURN_FIELDS, at);
    String text = optionalText(turn, "text", at);
    String error = optionalText(turn, "error", at);
    long delayMs = count(turn, "delayMs", at);
    Usage usage = null;
    JsonNode usageNode = turn.get("usage");
    if (usageNode != null && !usageNode.isNull()) {
      if (!usageNode.isObject()) {
        throw invalid(
            at + ".usage", "must be an object {\"inputTokens\", \"outputTokens\"}", usageNode);
      }
      knownFields(usageNode, USAGE_FIELDS, at + ".usage");
      usage =
          new Usage(
              count(usageNode, "inputTokens", at + ".usage"),
              count(usageNode, "outputTokens", at + ".usage"));
      if (usage.inputTokens() > Long.MAX_VALUE - usage.outputTokens()) {
        throw new IllegalArgumentException(
            "Model script " + at + ".usage: inputTokens + outputTokens overflow a 64-bit count.");
      }
    }
    List<ScriptedCall> calls = new ArrayList<>();
    JsonNode toolCalls = turn.get("toolCalls");
    if (toolCalls != null && !toolCalls.isNull()) {
      if (!toolCalls.isArray()) {
        throw invalid(
            at + ".toolCalls", "must be an array of {\"name\", \"arguments\"} objects", toolCalls);
      }
      for (int i = 0; i < toolCalls.size(); i++) {
        calls.add(call(toolCalls.get(i), at + ".toolCalls[" + i + "]"));
      }
    }
    return new Turn(text == null ? "" : text, List.copyOf(calls), delayMs, error, usage);
  }

  private static ScriptedCall call(JsonNode call, String at) {
    if (!call.isObject()) {
      throw invalid(at, "must be an object {\"name\", \"arguments\"}", call);
    }
    knownFields(call, CALL_FIELDS, at);
    JsonNode name = call.get("name");
    if (name == null || !name.isTextual() || name.textValue().isBlank()) {
      throw invalid(at + ".name", "must be a non-empty string", name);
    }
    JsonNode arguments = call.get("arguments");
    if (arguments == null || arguments.isNull()) {
      arguments = JsonNodeFactory.instance.objectNode();
    } else if (!arguments.isObject()) {
      throw invalid(at + ".arguments", "must be a JSON object", arguments);
    }
    return new ScriptedCall(name.textValue(), arguments);
  }

  private static String optionalText(JsonNode node, String field, String at) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw invalid(at + "." + field, "must be a string", value);
    }
    return value.textValue();
  }

  /** A non-negative integer that fits a {@code long}; 0 when absent. */
  private static long count(JsonNode node, String field, String at) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return 0;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
      throw invalid(
          at + "." + field,
          "must be a non-negative integer (at most " + Long.MAX_VALUE + ")",
          value);
    }
    return value.longValue();
  }

  private static void knownFields(JsonNode node, Set<String> known, String at) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new IllegalArgumentException(
            "Model script "
                + (at.isEmpty() ? "" : at + ": ")
                + "unknown field \""
                + shorten(name)
                + "\" (known: "
                + String.join(", ", known.stream().sorted().toList())
                + ").");
      }
    }
  }

  private static IllegalArgumentException invalid(String at, String rule, JsonNode value) {
    return new IllegalArgumentException(
        "Model script " + at + " " + rule + ", not " + describe(value) + ".");
  }

  private static String describe(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "missing";
    }
    String type =
        value.isObject()
            ? "an object"
            : value.isArray()
                ? "an array"
                : value.isTextual()
                    ? "a string"
                    : value.isBoolean() ? "a boolean" : value.isNull() ? "null" : "a number";
    return type + (value.isContainerNode() ? "" : " (" + shorten(value.toString()) + ")");
  }

  private static String shorten(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "...";
  }

  /** The number of turns in the script. */
  public int turnCount() {
    return turns.size();
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    if (contextWindow > 0) {
      long tokens =
          TokenEstimate.request(request.instructions(), request.tools(), request.messages());
      if (tokens > contextWindow) {
        throw ModelException.permanent(
            FailureTypes.CONTEXT_EXCEEDED,
            "This model's maximum context length is "
                + contextWindow
                + " tokens. However, your messages resulted in "
                + tokens
                + " tokens.");
      }
    }
    int index = request.assistantTurns();
    if (index >= turns.size()) {
      stream.text(SCRIPT_ENDED);
      return new ModelResponse(
          SCRIPT_ENDED, List.of(), FinishReason.STOP, estimate(request, SCRIPT_ENDED));
    }
    Turn turn = turns.get(index);
    sleep(turn.delayMs(), stream);
    if (turn.error() != null) {
      throw ModelException.permanent(FailureTypes.MODEL_ERROR, turn.error());
    }
    List<ToolCall> calls = new ArrayList<>();
    for (int i = 0; i < turn.calls().size(); i++) {
      ScriptedCall call = turn.calls().get(i);
      calls.add(new ToolCall("call_" + index + "_" + i, call.name(), call.arguments().deepCopy()));
    }
    if (!turn.text().isEmpty()) {
      stream.text(turn.text());
    }
    Usage usage = turn.usage() != null ? turn.usage() : estimate(request, turn.text());
    return new ModelResponse(
        turn.text(), calls, calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS, usage);
  }

  /** A rough, deterministic token count (four characters a token) when the script gives none. */
  private static Usage estimate(ModelRequest request, String answer) {
    long input = 0;
    for (Message message : request.messages()) {
      input += message.text() == null ? 0 : message.text().length();
      input += message.result() == null ? 0 : message.result().toString().length();
    }
    return new Usage(input / 4 + 1, answer.length() / 4 + 1);
  }

  private static void sleep(long millis, ModelStream stream) {
    long end = System.nanoTime() + Math.min(millis, Long.MAX_VALUE / 2_000_000L) * 1_000_000L;
    try {
      while (true) {
        long left = (end - System.nanoTime()) / 1_000_000L;
        if (left <= 0) {
          return;
        }
        Thread.sleep(Math.min(left, 200));
        stream.alive();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ModelException.transientFailure(FailureTypes.MODEL_INTERRUPTED, "interrupted", null);
    }
  }
}
