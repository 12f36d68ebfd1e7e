package io.durableagents.model.springai;

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
import java.util.Locale;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/**
 * Builds one answer from the {@link ChatResponse}s of a Spring AI stream (or the one response of a
 * blocking call): text goes to the {@link ModelStream} as it arrives; tool calls, the last finish
 * reason and the last usage counts are kept. Every generation of a response is read, since some
 * models (Anthropic's) give each content block a generation of its own.
 */
final class ChatResponseAccumulator {
  private final StringBuilder text = new StringBuilder();
  private final List<PartialCall> calls = new ArrayList<>();
  private String finishReason;
  private long inputTokens;
  private long outputTokens;
  private int responses;

  /** The text streamed so far. */
  String text() {
    return text.toString();
  }

  /** How many responses arrived. */
  int responses() {
    return responses;
  }

  void add(ChatResponse response, ModelStream stream) {
    responses++;
    for (Generation generation : response.getResults()) {
      if (generation == null) {
        continue;
      }
      AssistantMessage output = generation.getOutput();
      if (output != null) {
        String delta = output.getText();
        if (delta != null && !delta.isEmpty()) {
          text.append(delta);
          stream.text(delta);
        }
        for (AssistantMessage.ToolCall call : output.getToolCalls()) {
          toolCall(call);
        }
      }
      ChatGenerationMetadata metadata = generation.getMetadata();
      String reason = metadata == null ? null : metadata.getFinishReason();
      if (reason != null && !reason.isBlank()) {
        finishReason = reason;
      }
    }
    if (response.getMetadata() != null && response.getMetadata().getUsage() != null) {
      org.springframework.ai.chat.metadata.Usage usage = response.getMetadata().getUsage();
      // Streams report usage once, or cumulatively: the last count given is the call's.
      if (usage.getPromptTokens() != null && usage.getPromptTokens() != 0) {
        inputTokens = usage.getPromptTokens();
      }
      if (usage.getCompletionTokens() != null && usage.getCompletionTokens() != 0) {
        outputTokens = usage.getCompletionTokens();
      }
    }
  }

  /**
   * A call fragment without an id continues the call before it, as does one with the same id (a
   * model that streams a call's arguments in pieces); any other id starts a new call.
   */
  private void toolCall(AssistantMessage.ToolCall call) {
    String id = blankToNull(call.id());
    PartialCall last = calls.isEmpty() ? null : calls.get(calls.size() - 1);
    PartialCall target;
    if (last != null && (id == null || id.equals(last.id))) {
      target = last;
    } else {
      target = new PartialCall();
      target.id = id;
      calls.add(target);
    }
    if (target.name == null) {
      target.name = blankToNull(call.name());
    }
    if (call.arguments() != null) {
      target.arguments.append(call.arguments());
    }
  }

  /**
   * The answer, once the stream has ended.
   *
   * @param streamed true for a stream, which must have said why it ended: without a finish reason
   *     it was cut, and nothing of it is used; a blocking call's answer is complete by definition
   */
  ModelResponse finish(boolean streamed) {
    if (finishReason == null && streamed) {
      throw ModelException.permanent(
          FailureTypes.INCOMPLETE_RESPONSE,
          "The model stream ended without a finish reason (after "
              + responses
              + " response"
              + (responses == 1 ? "" : "s")
              + "); the partial answer is discarded.");
    }
    List<ToolCall> toolCalls = new ArrayList<>();
    for (int i = 0; i < calls.size(); i++) {
      PartialCall call = calls.get(i);
      if (call.name == null) {
        throw ModelException.permanent(
            FailureTypes.MODEL_RESPONSE_INVALID,
            "The model sent tool call "
                + i
                + (call.id == null ? "" : " (id " + shorten(call.id) + ")")
                + " without a tool name.");
      }
      toolCalls.add(
          new ToolCall(call.id, call.name, ToolArguments.parse(call.arguments.toString())));
    }
    return new ModelResponse(
        text.toString(),
        toolCalls,
        finishReason(finishReason, !toolCalls.isEmpty()),
        new Usage(inputTokens, outputTokens));
  }

  /**
   * Spring AI passes each model's own finish reason on, in the vendor's words and case: OpenAI's
   * {@code STOP}, {@code TOOL_CALLS}, {@code LENGTH}, {@code CONTENT_FILTER}; Anthropic's {@code
   * end_turn}, {@code tool_use}, {@code max_tokens}; Gemini's {@code MAX_TOKENS}, {@code SAFETY};
   * Ollama's {@code stop}, {@code length}. A turn with tool calls that says it stopped is a
   * tool-calls turn; null (a blocking call that gave none) is {@code stop}.
   */
  static String finishReason(String springAi, boolean hasToolCalls) {
    String reason =
        springAi == null ? "stop" : springAi.strip().toLowerCase(Locale.ROOT).replace('-', '_');
    String mapped =
        switch (reason) {
          case "tool_calls", "tool_call", "tool_use", "function_call" -> FinishReason.TOOL_CALLS;
          case "stop", "end_turn", "stop_sequence", "eos" -> FinishReason.STOP;
          case "length", "max_tokens", "model_length" -> FinishReason.LENGTH;
          case "content_filter", "safety", "prohibited_content", "blocklist", "spii", "refusal" ->
              "content-filter";
          default -> "other";
        };
    return hasToolCalls && mapped.equals(FinishReason.STOP) ? FinishReason.TOOL_CALLS : mapped;
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  private static String shorten(String text) {
    return text.length() <= 64 ? text : text.substring(0, 64) + "...";
  }

  private static final class PartialCall {
    String id;
    String name;
    final StringBuilder arguments = new StringBuilder();
  }
}
