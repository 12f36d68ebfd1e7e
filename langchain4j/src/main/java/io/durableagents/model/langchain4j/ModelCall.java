package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialThinking;
import dev.langchain4j.model.chat.response.PartialThinkingContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import io.durableagents.model.ModelEventQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call of a LangChain4j model, on a thread of the provider's: what the model produces goes to a
 * {@link ModelEventQueue} that the model activity's thread reads. {@link #abandon()} gives up on
 * it: it cancels the stream through LangChain4j's {@link StreamingHandle} (at once if a callback
 * has handed one over, else at the next callback) and interrupts the calling thread (a blocking
 * model's HTTP call).
 */
final class ModelCall implements StreamingChatResponseHandler {
  /** What the activity's thread receives. */
  sealed interface Event permits Text, Thinking, Done {}

  /** A piece of answer text. */
  record Text(String text) implements Event {}

  /** A piece of reasoning. */
  record Thinking(String text) implements Event {}

  /** The complete response. */
  record Done(ChatResponse response) implements Event {}

  private final ModelEventQueue<Event> events;
  private final ObjectMapper mapper;
  private final AtomicReference<StreamingHandle> handle = new AtomicReference<>();
  private volatile boolean abandoned;
  private Future<?> task;

  private ModelCall(ModelEventQueue<Event> events, ObjectMapper mapper) {
    this.events = events;
    this.mapper = mapper;
  }

  /**
   * Starts a streaming call. {@code chat} runs on a thread of {@code executor}, not the activity's:
   * a model that streams on the calling thread would otherwise keep the activity from reading its
   * events (and from noticing a cancel) until it is done.
   */
  static ModelCall streaming(
      StreamingChatModel model,
      ChatRequest request,
      ModelEventQueue<Event> events,
      ExecutorService executor,
      ObjectMapper mapper) {
    ModelCall call = new ModelCall(events, mapper);
    call.task =
        executor.submit(
            () -> {
              try {
                model.chat(request, call);
              } catch (RuntimeException | Error e) {
                call.onError(e);
              }
            });
    return call;
  }

  /** Starts a blocking call: its response, or its failure, goes to the queue when it returns. */
  static ModelCall blocking(
      ChatModel model,
      ChatRequest request,
      ModelEventQueue<Event> events,
      ExecutorService executor,
      ObjectMapper mapper) {
    ModelCall call = new ModelCall(events, mapper);
    call.task =
        executor.submit(
            () -> {
              try {
                call.onCompleteResponse(model.chat(request));
              } catch (RuntimeException | Error e) {
                call.onError(e);
              }
            });
    return call;
  }

  /** Gives up on the call: the stream is cancelled, the calling thread interrupted. */
  void abandon() {
    abandoned = true;
    StreamingHandle known = handle.get();
    if (known != null) {
      known.cancel();
    }
    Future<?> running = task;
    if (running != null) {
      running.cancel(true);
    }
  }

  /** Keeps the stream's handle; cancels it when the call was abandoned before it was known. */
  private boolean keep(StreamingHandle streamingHandle) {
    if (streamingHandle != null) {
      handle.compareAndSet(null, streamingHandle);
    }
    if (abandoned) {
      if (streamingHandle != null) {
        streamingHandle.cancel();
      }
      return false;
    }
    return true;
  }

  @Override
  public void onPartialResponse(String partialResponse) {
    if (keep(null) && partialResponse != null && !partialResponse.isEmpty()) {
      events.put(new Text(partialResponse));
    }
  }

  @Override
  public void onPartialResponse(PartialResponse partialResponse, PartialResponseContext context) {
    if (keep(context == null ? null : context.streamingHandle())) {
      onPartialResponse(partialResponse.text());
    }
  }

  @Override
  public void onPartialThinking(PartialThinking partialThinking) {
    String text = partialThinking == null ? null : partialThinking.text();
    if (keep(null) && text != null && !text.isEmpty()) {
      events.put(new Thinking(text));
    }
  }

  @Override
  public void onPartialThinking(PartialThinking partialThinking, PartialThinkingContext context) {
    if (keep(context == null ? null : context.streamingHandle())) {
      onPartialThinking(partialThinking);
    }
  }

  /** Only its handle is kept: the complete response carries the whole tool calls. */
  @Override
  public void onPartialToolCall(PartialToolCall partialToolCall, PartialToolCallContext context) {
    keep(context == null ? null : context.streamingHandle());
  }

  @Override
  public void onCompleteToolCall(CompleteToolCall completeToolCall) {
    // the complete response carries it
  }

  @Override
  public void onCompleteResponse(ChatResponse completeResponse) {
    if (completeResponse == null) {
      onError(new IllegalStateException("the model completed without a response"));
      return;
    }
    events.put(new Done(completeResponse));
    events.complete();
  }

  @Override
  public void onError(Throwable error) {
    // Classified here, on LangChain4j's thread: what the activity's thread takes from the queue is
    // then either a ModelException or its own cancel.
    events.fail(LangChain4jErrors.classify(error, mapper));
  }
}
