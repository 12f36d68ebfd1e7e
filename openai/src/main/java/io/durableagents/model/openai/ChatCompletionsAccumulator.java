package io.durableagents.model.openai;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ToolArguments;
import io.durableagents.workflow.FailureTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Builds one answer from the {@code chat.completion.chunk}s of a stream: text and reasoning deltas
 * go to the {@link ModelStream} as they arrive; tool-call fragments are joined by their {@code
 * index}; the finish reason and the usage chunk are kept. Only choice 0 is read.
 */
final class ChatCompletionsAccumulator {
  static final String DONE = "[DONE]";

  private final ObjectMapper mapper;
  private final StringBuilder text = new StringBuilder();
  private final TreeMap<Integer, PartialCall> calls = new TreeMap<>();
  private String finishReason;
  private Usage usage;
  private boolean done;
  private int chunks;

  ChatCompletionsAccumulator(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The text streamed so far. */
  String text() {
    return text.toString();
  }

  /** Whether {@code data: [DONE]} arrived. */
  boolean done() {
    return done;
  }

  /**
   * Handles the data of one event.
   *
   * @param lastAtEnd the data of an event the body ended inside: if it is not a whole chunk, the
   *     stream was cut there, and {@link #finish()} reports an incomplete response
   */
  void data(String data, ModelStream stream, boolean lastAtEnd) {
    if (done) {
      return;
    }
    if (DONE.equals(data.strip())) {
      done = true;
      return;
    }
    JsonNode chunk;
    try {
      chunk = mapper.readTree(data);
    } catch (JsonProcessingException e) {
      if (lastAtEnd) {
        return;
      }
      throw ModelException.permanent(
          FailureTypes.MODEL_RESPONSE_INVALID,
          "The model server sent a stream chunk that is not JSON: " + e.getOriginalMessage());
    }
    if (chunk == null || !chunk.isObject()) {
      if (lastAtEnd) {
        return;
      }
      throw ModelException.permanent(
          FailureTypes.MODEL_RESPONSE_INVALID,
          "The model server sent a stream chunk that is not an object.");
    }
    chunks++;
    if (chunk.hasNonNull("error")) {
      // An error after the 200 status: the server gave up mid-generation (overloaded, crashed).
      throw ModelException.transientFailure(
          FailureTypes.MODEL_UNAVAILABLE,
          "The model server failed mid-stream: "
              + Objects.requireNonNullElse(ChatCompletionsErrors.message(chunk), chunk.toString()),
          null);
    }
    JsonNode usageNode = chunk.get("usage");
    if (usageNode != null && usageNode.isObject()) {
      usage = new Usage(tokens(usageNode, "prompt_tokens"), tokens(usageNode, "completion_tokens"));
    }
    for (JsonNode choice : chunk.path("choices")) {
      if (choice.path("index").asInt(0) != 0) {
        continue;
      }
      JsonNode delta = choice.path("delta");
      String reasoning = firstText(delta, "reasoning_content", "reasoning");
      if (reasoning != null) {
        stream.reasoning(reasoning);
      }
      JsonNode content = delta.get("content");
      if (content != null && content.isTextual() && !content.textValue().isEmpty()) {
        text.append(content.textValue());
        stream.text(content.textValue());
      }
      JsonNode toolCalls = delta.get("tool_calls");
      if (toolCalls != null && toolCalls.isArray()) {
        for (JsonNode fragment : toolCalls) {
          fragment(fragment);
        }
      }
      JsonNode finish = choice.get("finish_reason");
      if (finish != null && finish.isTextual() && !finish.textValue().isEmpty()) {
        finishReason = finish.textValue();
      }
    }
  }

  /**
   * The answer, once the stream has ended. Without a finish reason the answer is incomplete and
   * nothing of it is used: not its text, not its tool calls.
   */
  ModelResponse finish() {
    if (finishReason == null) {
      throw ModelException.permanent(
          FailureTypes.INCOMPLETE_RESPONSE,
          "The model stream ended without a finish reason ("
              + (done ? "[DONE] arrived early" : "the stream was cut")
              + " after "
              + chunks
              + " chunk"
              + (chunks == 1 ? "" : "s")
              + "); the partial answer is discarded.");
    }
    List<ToolCall> toolCalls = new ArrayList<>();
    for (var entry : calls.entrySet()) {
      PartialCall call = entry.getValue();
      if (call.name == null) {
        throw ModelException.permanent(
            FailureTypes.MODEL_RESPONSE_INVALID,
            "The model server sent tool call "
                + entry.getKey()
                + (call.id == null ? "" : " (id " + shorten(call.id) + ")")
                + " without a function name.");
      }
      toolCalls.add(
          new ToolCall(call.id, call.name, ToolArguments.parse(call.arguments.toString())));
    }
    return new ModelResponse(
        text.toString(), toolCalls, finishReason(finishReason, !toolCalls.isEmpty()), usage);
  }

  private void fragment(JsonNode fragment) {
    int index;
    if (fragment.has("index") && fragment.get("index").canConvertToInt()) {
      index = fragment.get("index").asInt();
    } else {
      // Some compatible servers omit the index: a new id starts a new call, else it continues.
      String id = fragment.path("id").asText("");
      boolean known = calls.values().stream().anyMatch(c -> id.equals(c.id));
      index = calls.isEmpty() ? 0 : calls.lastKey();
      if (!id.isEmpty() && !known && !calls.isEmpty()) {
        index++;
      }
    }
    PartialCall call = calls.computeIfAbsent(index, i -> new PartialCall());
    JsonNode id = fragment.get("id");
    if (call.id == null && id != null && id.isTextual() && !id.textValue().isEmpty()) {
      call.id = id.textValue();
    }
    JsonNode function = fragment.path("function");
    JsonNode name = function.get("name");
    if (call.name == null && name != null && name.isTextual() && !name.textValue().isEmpty()) {
      call.name = name.textValue();
    }
    JsonNode arguments = function.get("arguments");
    if (arguments != null && arguments.isTextual()) {
      call.arguments.append(arguments.textValue());
    }
  }

  /**
   * A token count of the usage chunk: absent or null is 0; anything but a non-negative integer that
   * fits a {@code long} is refused, so a server's bad count never reaches the session's totals.
   */
  private static long tokens(JsonNode usage, String field) {
    JsonNode value = usage.get(field);
    if (value == null || value.isNull()) {
      return 0;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong() || value.longValue() < 0) {
      throw ModelException.permanent(
          FailureTypes.MODEL_RESPONSE_INVALID,
          "The model server sent usage."
              + field
              + " = "
              + shorten(value.toString())
              + ": not a token count (a non-negative integer).");
    }
    return value.longValue();
  }

  private static String shorten(String text) {
    return text.length() <= 64 ? text : text.substring(0, 64) + "...";
  }

  static String finishReason(String openAi, boolean hasToolCalls) {
    return switch (openAi) {
      case "tool_calls", "function_call" -> FinishReason.TOOL_CALLS;
      // Some compatible servers say "stop" after tool calls; the calls are what count.
      case "stop" -> hasToolCalls ? FinishReason.TOOL_CALLS : FinishReason.STOP;
      case "length" -> FinishReason.LENGTH;
      case "content_filter" -> "content-filter";
      default -> "other";
    };
  }

  private static String firstText(JsonNode node, String... fields) {
    for (String field : fields) {
      JsonNode value = node.get(field);
      if (value != null && value.isTextual() && !value.textValue().isEmpty()) {
        return value.textValue();
      }
    }
    return null;
  }

  private static final class PartialCall {
    String id;
    String name;
    final StringBuilder arguments = new StringBuilder();
  }
}
