package io.durableagents.model;

import io.durableagents.workflow.FailureTypes;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A failed model call. {@code retryable} failures (429, 5xx, timeouts) are retried per the model
 * activity's retry policy, after {@code retryAfter} when the provider said so; the others fail the
 * run with {@code code}.
 */
public class ModelException extends RuntimeException {
  /**
   * How model servers word a request over the context window: OpenAI ({@code
   * context_length_exceeded}, "maximum context length"), Anthropic ("prompt is too long"), vLLM,
   * llama.cpp ({@code exceed_context_size_error}), Mistral and Gemini's compatible endpoints.
   */
  private static final List<String> TOO_LONG =
      List.of(
          "context_length_exceeded",
          "context length",
          "context window",
          "context size",
          "exceed_context_size",
          "prompt is too long",
          "too many tokens",
          "exceeds the maximum number of tokens");

  /** The failure type the run fails with when it is not retried. */
  private final String code;

  /** True when a retry may succeed. */
  private final boolean retryable;

  /** The provider's wait before a retry, or null. */
  private final Duration retryAfter;

  /** What the model streamed before the failure, or null. */
  private final String partialText;

  /** A failure with its code and message; {@code retryAfter} may be null. */
  public ModelException(String code, String message, boolean retryable, Duration retryAfter) {
    this(code, message, retryable, retryAfter, null);
  }

  /**
   * A failure with its code and message, and the text the model streamed before it ({@code
   * partialText}, null: none); {@code retryAfter} may be null.
   */
  public ModelException(
      String code, String message, boolean retryable, Duration retryAfter, String partialText) {
    super(message);
    this.code = code;
    this.retryable = retryable;
    this.retryAfter = retryAfter;
    this.partialText = partialText == null || partialText.isEmpty() ? null : partialText;
  }

  /** A failure that no retry can fix. */
  public static ModelException permanent(String code, String message) {
    return new ModelException(code, message, false, null);
  }

  /** A transient failure, retried after {@code retryAfter} (null: the policy's backoff). */
  public static ModelException transientFailure(String code, String message, Duration retryAfter) {
    return new ModelException(code, message, true, retryAfter);
  }

  /**
   * The failure an HTTP model API's refusal means: 429 is a transient {@code model_rate_limited},
   * 5xx and 408 (the server timed out waiting for us) a transient {@code model_unavailable}, both
   * retried after {@code retryAfter} (null: the policy's backoff); 413, or a 400 whose message says
   * the request is longer than the model's context window (OpenAI's {@code
   * context_length_exceeded}, Anthropic's "prompt is too long", the wording of compatible servers),
   * a permanent {@code context_exceeded}; any other status a permanent {@code
   * model_request_invalid}, which no retry can fix.
   *
   * @param detail the server's own error message, shown in the failure
   */
  public static ModelException forHttpStatus(int status, String detail, Duration retryAfter) {
    if (status == 429) {
      return transientFailure(
          FailureTypes.MODEL_RATE_LIMITED,
          "The model server is rate limiting (HTTP 429): " + detail,
          retryAfter);
    }
    if (status >= 500 || status == 408) {
      return transientFailure(
          FailureTypes.MODEL_UNAVAILABLE,
          "The model server failed (HTTP " + status + "): " + detail,
          retryAfter);
    }
    if (status == 413 || (status == 400 && saysTooLong(detail))) {
      return permanent(
          FailureTypes.CONTEXT_EXCEEDED,
          "The model server refused the request as too long for the model (HTTP "
              + status
              + "): "
              + detail);
    }
    return permanent(
        FailureTypes.MODEL_REQUEST_INVALID,
        "The model server refused the request (HTTP " + status + "): " + detail);
  }

  /** Whether a refusal's message is about the request's length in tokens. */
  private static boolean saysTooLong(String detail) {
    String text = detail == null ? "" : detail.toLowerCase(Locale.ROOT);
    return TOO_LONG.stream().anyMatch(text::contains);
  }

  /** The failure type the run fails with when it is not retried. */
  public String code() {
    return code;
  }

  /** True when a retry may succeed. */
  public boolean retryable() {
    return retryable;
  }

  /** How long to wait before the retry, as the provider said; null when it did not. */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * The text the model streamed before the failure, which the failed step of the run's history
   * keeps; null when it streamed none.
   */
  public String partialText() {
    return partialText;
  }

  /**
   * This failure with the text the model streamed before it; this one when {@code text} is empty or
   * it already has one.
   */
  public ModelException withPartialText(String text) {
    if (text == null || text.isEmpty() || partialText != null) {
      return this;
    }
    ModelException copy = new ModelException(code, getMessage(), retryable, retryAfter, text);
    copy.setStackTrace(getStackTrace());
    return copy;
  }
}
