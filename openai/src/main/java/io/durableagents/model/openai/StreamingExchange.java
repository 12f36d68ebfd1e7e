package io.durableagents.model.openai;

import io.durableagents.model.ModelException;
import io.durableagents.model.ModelStream;
import io.durableagents.workflow.FailureTypes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodySubscribers;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One streaming HTTP exchange, read line by line on the caller's (activity) thread. The JDK client
 * delivers the response to a queue; the caller polls it and, whenever nothing arrived for a moment,
 * calls {@link ModelStream#alive()} so the activity heartbeats and learns of a cancel while it
 * waits. Closing the exchange abandons the request and the connection.
 */
final class StreamingExchange implements AutoCloseable {
  private static final long POLL_MILLIS = 250;

  private sealed interface Item permits Head, Line, End, Failed {}

  /** The status line and headers. */
  record Head(int status, HttpHeaders headers) implements Item {}

  private record Line(String text) implements Item {}

  private record End() implements Item {}

  private record Failed(Throwable error) implements Item {}

  private final BlockingQueue<Item> items = new LinkedBlockingQueue<>();
  private final URI endpoint;
  private final Duration idleTimeout;
  private volatile Flow.Subscription subscription;
  private volatile boolean closed;
  private CompletableFuture<HttpResponse<Void>> response;
  private boolean headReceived;

  StreamingExchange(URI endpoint, Duration idleTimeout) {
    this.endpoint = endpoint;
    this.idleTimeout = idleTimeout;
  }

  // The callback below is the failure handler; the stage whenComplete returns ends as response
  // does.
  @SuppressWarnings("FutureReturnValueIgnored")
  void start(HttpClient client, HttpRequest request) {
    response =
        client.sendAsync(
            request,
            info -> {
              items.add(new Head(info.statusCode(), info.headers()));
              return BodySubscribers.fromLineSubscriber(
                  new LineSubscriber(),
                  (LineSubscriber s) -> (Void) null,
                  StandardCharsets.UTF_8,
                  null);
            });
    response.whenComplete(
        (r, e) -> {
          if (e != null) {
            items.add(new Failed(e));
          }
        });
  }

  /** Waits for the status line and headers. */
  Head head(ModelStream stream) {
    Item item = next(stream);
    if (item instanceof Head head) {
      headReceived = true;
      return head;
    }
    throw failure(item);
  }

  /** The next line of the body, or null at its end. */
  String line(ModelStream stream) {
    Item item = next(stream);
    if (item instanceof Line line) {
      return line.text();
    }
    if (item instanceof End) {
      return null;
    }
    throw failure(item);
  }

  /** The rest of the body as text, at most {@code maxChars} of it (an error body). */
  String rest(ModelStream stream, int maxChars) {
    StringBuilder body = new StringBuilder();
    String line;
    while ((line = line(stream)) != null && body.length() < maxChars) {
      if (body.length() > 0) {
        body.append('\n');
      }
      body.append(line);
    }
    return body.toString();
  }

  private Item next(ModelStream stream) {
    long deadline = System.nanoTime() + idleTimeout.toNanos();
    while (true) {
      Item item;
      try {
        item = items.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw ModelException.transientFailure(
            FailureTypes.MODEL_INTERRUPTED,
            "The model call was interrupted (worker shutting down?).",
            null);
      }
      if (item != null) {
        return item;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw ModelException.transientFailure(
            FailureTypes.MODEL_TIMEOUT,
            "The model server at "
                + where()
                + " sent nothing for "
                + idleTimeout.toSeconds()
                + " s"
                + (headReceived ? " in the middle of its answer." : " (no response yet)."),
            null);
      }
      stream.alive();
    }
  }

  private ModelException failure(Item item) {
    if (!(item instanceof Failed failed)) {
      return ModelException.transientFailure(
          "model_connection_failed", "The model server's response ended before its headers.", null);
    }
    Throwable cause = failed.error();
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String detail =
        cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    if (cause instanceof HttpTimeoutException) {
      return ModelException.transientFailure(
          FailureTypes.MODEL_TIMEOUT,
          "The model server at " + where() + " did not answer in time: " + detail,
          null);
    }
    if (cause instanceof IOException) {
      return ModelException.transientFailure(
          "model_connection_failed",
          (headReceived
                  ? "The connection to the model server at " + where() + " broke mid-answer: "
                  : "Cannot reach the model server at " + where() + ": ")
              + detail,
          null);
    }
    return ModelException.permanent(
        FailureTypes.MODEL_REQUEST_INVALID,
        "The request to the model server at " + where() + " failed: " + cause);
  }

  /** Host and port only: the URL may carry a query or credentials that must not reach a log. */
  private String where() {
    return endpoint.getHost() + (endpoint.getPort() < 0 ? "" : ":" + endpoint.getPort());
  }

  @Override
  public void close() {
    closed = true;
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
    if (response != null) {
      response.cancel(true);
    }
  }

  private final class LineSubscriber implements Flow.Subscriber<String> {
    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (closed) {
        s.cancel();
      } else {
        s.request(Long.MAX_VALUE);
      }
    }

    @Override
    public void onNext(String line) {
      items.add(new Line(line));
    }

    @Override
    public void onError(Throwable error) {
      items.add(new Failed(error));
    }

    @Override
    public void onComplete() {
      items.add(new End());
    }
  }
}
