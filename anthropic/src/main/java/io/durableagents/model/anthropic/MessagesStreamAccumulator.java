package io.durableagents.model.anthropic;

import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.models.messages.MessageDeltaUsage;
import com.anthropic.models.messages.RawContentBlockDelta;
import com.anthropic.models.messages.RawContentBlockDeltaEvent;
import com.anthropic.models.messages.RawContentBlockStartEvent;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
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
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Builds one answer from the events of a Messages stream: text and thinking deltas go to the {@link
 * ModelStream} as they arrive; a {@code tool_use} block's {@code input_json_delta} fragments are
 * joined per block index; the stop reason and the usage are kept. Only {@code message_stop} ends
 * the answer.
 */
final class MessagesStreamAccumulator {
  private final ObjectMapper mapper;
  private final StringBuilder text = new StringBuilder();
  private final TreeMap<Long, ToolUse> toolUses = new TreeMap<>();
  private boolean started;
  private boolean stopped;
  private String stopReason;
  private long inputTokens;
  private long outputTokens;
  private int events;

  MessagesStreamAccumulator(ObjectMapper mapper) {
    this.mapper = mapper;
  }

  /** The text streamed so far. */
  String text() {
    return text.toString();
  }

  /** Whether {@code message_stop} arrived. */
  boolean done() {
    return stopped;
  }

  /**
   * Handles one event.
   *
   * @throws ModelException {@code model_response_invalid} for an event that lacks what its type
   *     requires (an index, a tool's id or name, a delta's text)
   */
  void on(RawMessageStreamEvent event, ModelStream stream) {
    events++;
    try {
      if (event.isMessageStart()) {
        started = true;
        com.anthropic.models.messages.Usage usage = event.asMessageStart().message().usage();
        inputTokens =
            usage.inputTokens()
                + usage.cacheCreationInputTokens().orElse(0L)
                + usage.cacheReadInputTokens().orElse(0L);
        outputTokens = usage.outputTokens();
      } else if (event.isContentBlockStart()) {
        requireStarted("content_block_start");
        blockStart(event.asContentBlockStart(), stream);
      } else if (event.isContentBlockDelta()) {
        requireStarted("content_block_delta");
        blockDelta(event.asContentBlockDelta(), stream);
      } else if (event.isMessageDelta()) {
        requireStarted("message_delta");
        event
            .asMessageDelta()
            .delta()
            .stopReason()
            .map(StopReason::asString)
            .ifPresent(reason -> stopReason = reason);
        usage(event.asMessageDelta().usage());
      } else if (event.isMessageStop()) {
        requireStarted("message_stop");
        stopped = true;
      } else if (!event.isContentBlockStop()) {
        throw invalid("an event of no type the Messages API defines: " + json(event._json()));
      }
    } catch (AnthropicInvalidDataException e) {
      throw invalid("a malformed event (" + e.getMessage() + "): " + json(event._json()));
    }
  }

  private void requireStarted(String type) {
    if (!started) {
      throw invalid("a " + type + " event before message_start");
    }
  }

  private void blockStart(RawContentBlockStartEvent start, ModelStream stream) {
    long index = start.index();
    RawContentBlockStartEvent.ContentBlock block = start.contentBlock();
    if (block.isToolUse()) {
      var use = block.asToolUse();
      toolUses.put(index, new ToolUse(use.id(), use.name(), use._input()));
    } else if (block.isText()) {
      appendText(block.asText().text(), stream);
    } else if (block.isThinking()) {
      String thinking = block.asThinking().thinking();
      if (!thinking.isEmpty()) {
        stream.reasoning(thinking);
      }
    }
    // Other blocks (redacted thinking, server tools' blocks) carry nothing this answer keeps.
  }

  private void blockDelta(RawContentBlockDeltaEvent event, ModelStream stream) {
    long index = event.index();
    RawContentBlockDelta delta = event.delta();
    if (delta.isText()) {
      appendText(delta.asText().text(), stream);
    } else if (delta.isInputJson()) {
      ToolUse use = toolUses.get(index);
      if (use == null) {
        throw invalid("an input_json_delta for block " + index + ", which is not a tool_use block");
      }
      use.input.append(delta.asInputJson().partialJson());
    } else if (delta.isThinking()) {
      String thinking = delta.asThinking().thinking();
      if (!thinking.isEmpty()) {
        stream.reasoning(thinking);
      }
    }
    // signature_delta and citations_delta: nothing this answer keeps.
  }

  private void appendText(String delta, ModelStream stream) {
    if (!delta.isEmpty()) {
      text.append(delta);
      stream.text(delta);
    }
  }

  /** message_delta's usage is cumulative; its input count, when given, replaces message_start's. */
  private void usage(MessageDeltaUsage usage) {
    outputTokens = usage.outputTokens();
    Optional<Long> input = usage.inputTokens();
    if (input.isPresent()) {
      inputTokens =
          input.get()
              + usage.cacheCreationInputTokens().orElse(0L)
              + usage.cacheReadInputTokens().orElse(0L);
    }
  }

  /**
   * The answer, once the stream has ended. Without {@code message_stop} (or without a stop reason)
   * the answer is incomplete and nothing of it is used: not its text, not its tool calls.
   */
  ModelResponse finish() {
    if (!stopped || stopReason == null) {
      throw ModelException.permanent(
          FailureTypes.INCOMPLETE_RESPONSE,
          "The model stream ended "
              + (stopped ? "without a stop reason" : "before message_stop")
              + " (after "
              + events
              + " event"
              + (events == 1 ? "" : "s")
              + "); the partial answer is discarded.");
    }
    if (inputTokens < 0 || outputTokens < 0) {
      throw invalid(
          "a negative token count (input " + inputTokens + ", output " + outputTokens + ")");
    }
    List<ToolCall> calls = new ArrayList<>();
    for (Map.Entry<Long, ToolUse> entry : toolUses.entrySet()) {
      ToolUse use = entry.getValue();
      calls.add(new ToolCall(use.id, use.name, use.arguments(mapper)));
    }
    return new ModelResponse(
        text.toString(),
        calls,
        finishReason(stopReason, !calls.isEmpty()),
        new Usage(inputTokens, outputTokens));
  }

  static String finishReason(String stopReason, boolean hasToolCalls) {
    return switch (stopReason) {
      case "tool_use" -> FinishReason.TOOL_CALLS;
      case "end_turn", "stop_sequence" ->
          hasToolCalls ? FinishReason.TOOL_CALLS : FinishReason.STOP;
      case "max_tokens" -> FinishReason.LENGTH;
      case "refusal" -> "content-filter";
      default -> "other";
    };
  }

  private static ModelException invalid(String what) {
    return ModelException.permanent(
        FailureTypes.MODEL_RESPONSE_INVALID, "The Anthropic stream sent " + what + ".");
  }

  private static String json(Optional<com.anthropic.core.JsonValue> json) {
    String text = json.map(Object::toString).orElse("(no JSON)");
    return text.length() <= 200 ? text : text.substring(0, 200) + "...";
  }

  /** A {@code tool_use} block being streamed. */
  private static final class ToolUse {
    final String id;
    final String name;
    final com.anthropic.core.JsonValue startInput;
    final StringBuilder input = new StringBuilder();

    ToolUse(String id, String name, com.anthropic.core.JsonValue startInput) {
      this.id = id;
      this.name = name;
      this.startInput = startInput;
    }

    /**
     * The joined fragments when they are a JSON object; otherwise the raw text as a string node, so
     * that the tool's validation answers the model with {@code invalid_arguments}. Without
     * fragments, the input the block started with (usually {@code {}}).
     */
    JsonNode arguments(ObjectMapper mapper) {
      String raw = input.toString();
      if (raw.isBlank()) {
        JsonNode start = startInput == null ? null : startInput.convert(JsonNode.class);
        return start != null && start.isObject() ? start : mapper.createObjectNode();
      }
      return ToolArguments.parse(raw);
    }
  }
}
