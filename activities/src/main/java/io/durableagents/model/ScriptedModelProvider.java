package io.durableagents.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.workflow.FinishReason;
import io.durableagents.workflow.Message;
import io.durableagents.workflow.ToolCall;
import io.durableagents.workflow.Usage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A deterministic model for tests and demos, played from a script {@code {"turns": [TURN, ...]}}
 * where {@code TURN = {"text", "toolCalls": [{"name", "arguments"}], "delayMs", "error",
 * "usage": {"inputTokens", "outputTokens"}}} (all optional).
 *
 * <p>The turn played is the number of assistant messages already in the conversation, so a
 * replayed or retried call plays the same turn. Past the last turn it answers {@value #SCRIPT_ENDED}.
 * Tool call ids are {@code call_<turn>_<index>}.
 */
public final class ScriptedModelProvider implements ModelProvider {
  public static final String SCRIPT_ENDED = "(script ended)";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<JsonNode> turns;

  private ScriptedModelProvider(List<JsonNode> turns) {
    this.turns = List.copyOf(turns);
  }

  public static ScriptedModelProvider fromFile(Path path) {
    try {
      return fromJson(Files.readString(path));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read model script " + path + ": " + e.getMessage(), e);
    }
  }

  public static ScriptedModelProvider fromJson(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("Model script is not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.path("turns").isArray()) {
      throw new IllegalArgumentException("Model script must be an object with a \"turns\" array.");
    }
    List<JsonNode> turns = new ArrayList<>();
    root.path("turns").forEach(turns::add);
    for (int i = 0; i < turns.size(); i++) {
      if (!turns.get(i).isObject()) {
        throw new IllegalArgumentException("Model script turn " + i + " is not an object.");
      }
    }
    return new ScriptedModelProvider(turns);
  }

  public int turnCount() {
    return turns.size();
  }

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    int index = request.assistantTurns();
    if (index >= turns.size()) {
      stream.text(SCRIPT_ENDED);
      return new ModelResponse(SCRIPT_ENDED, List.of(), FinishReason.STOP, estimate(request, SCRIPT_ENDED));
    }
    JsonNode turn = turns.get(index);
    sleep(turn.path("delayMs").asLong(0), stream);
    String text = turn.path("text").isTextual() ? turn.path("text").asText() : "";
    if (turn.hasNonNull("error")) {
      throw ModelException.permanent("model_error", turn.path("error").asText());
    }
    List<ToolCall> calls = new ArrayList<>();
    JsonNode toolCalls = turn.path("toolCalls");
    for (int i = 0; i < toolCalls.size(); i++) {
      JsonNode call = toolCalls.get(i);
      JsonNode arguments = call.has("arguments") ? call.get("arguments") : JsonNodeFactory.instance.objectNode();
      calls.add(new ToolCall("call_" + index + "_" + i, call.path("name").asText(), arguments));
    }
    if (!text.isEmpty()) {
      stream.text(text);
    }
    Usage usage =
        turn.has("usage")
            ? new Usage(
                turn.path("usage").path("inputTokens").asLong(0),
                turn.path("usage").path("outputTokens").asLong(0))
            : estimate(request, text);
    return new ModelResponse(
        text, calls, calls.isEmpty() ? FinishReason.STOP : FinishReason.TOOL_CALLS, usage);
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
    long end = System.nanoTime() + millis * 1_000_000L;
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
      throw ModelException.transientFailure("model_interrupted", "interrupted", null);
    }
  }
}
