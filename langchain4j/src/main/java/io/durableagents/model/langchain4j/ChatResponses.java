package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ToolArguments;
import io.durableagents.workflow.FailureTypes;
import java.util.ArrayList;
import java.util.List;

/** A LangChain4j {@link ChatResponse} as the answer of a model turn. */
final class ChatResponses {
  private ChatResponses() {}

  /**
   * The answer: {@code text} (what was streamed, or the response's text when nothing was), the tool
   * calls, the finish reason and the usage.
   *
   * @param streamed whether the response ends a stream: a streamed response without a finish reason
   *     was cut (LangChain4j completes a stream that ends early all the same) and is refused as
   *     {@code incomplete_response}; a blocking model's response is whole, and without a finish
   *     reason it is {@code tool-calls} or {@code stop} by its content
   */
  static ModelResponse from(
      ChatResponse response, String text, boolean streamed, ObjectMapper mapper) {
    AiMessage message = response.aiMessage();
    List<ToolCall> toolCalls = new ArrayList<>();
    if (message != null) {
      for (ToolExecutionRequest call : message.toolExecutionRequests()) {
        toolCalls.add(new ToolCall(call.id(), call.name(), ToolArguments.parse(call.arguments())));
      }
    }
    FinishReason finish = response.finishReason();
    if (finish == null && streamed) {
      throw ModelException.permanent(
          FailureTypes.INCOMPLETE_RESPONSE,
          "The model's stream ended without a finish reason (cut short?); the partial answer is"
              + " discarded.");
    }
    return new ModelResponse(
        text, toolCalls, finishReason(finish, !toolCalls.isEmpty()), usage(response.tokenUsage()));
  }

  static String finishReason(FinishReason finish, boolean hasToolCalls) {
    if (finish == null) {
      return hasToolCalls
          ? io.durableagents.conversation.FinishReason.TOOL_CALLS
          : io.durableagents.conversation.FinishReason.STOP;
    }
    return switch (finish) {
      case TOOL_EXECUTION -> io.durableagents.conversation.FinishReason.TOOL_CALLS;
      // Some servers say "stop" after tool calls; the calls are what count.
      case STOP ->
          hasToolCalls
              ? io.durableagents.conversation.FinishReason.TOOL_CALLS
              : io.durableagents.conversation.FinishReason.STOP;
      case LENGTH -> io.durableagents.conversation.FinishReason.LENGTH;
      case CONTENT_FILTER -> "content-filter";
      case OTHER -> "other";
    };
  }

  /** Token counts; absent counts are 0 (a negative one is refused by the model activity). */
  static Usage usage(TokenUsage usage) {
    if (usage == null) {
      return Usage.ZERO;
    }
    return new Usage(count(usage.inputTokenCount()), count(usage.outputTokenCount()));
  }

  private static long count(Integer tokens) {
    return tokens == null ? 0 : tokens;
  }
}
