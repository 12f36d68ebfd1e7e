package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.workflow.FailureTypes;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What an HTTP model API's refusal means, by its status and the server's own message. */
class ModelExceptionTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        // OpenAI's Chat Completions, as the providers' detail shows it: message (type, code).
        "This model's maximum context length is 8192 tokens. However, your messages resulted in"
            + " 9013 tokens. Please reduce the length of the messages. (invalid_request_error,"
            + " context_length_exceeded)",
        // Anthropic's Messages API.
        "prompt is too long: 210417 tokens > 200000 maximum (invalid_request_error)",
        // llama.cpp's server.
        "the request exceeds the available context size, try increasing it"
            + " (exceed_context_size_error)",
        // vLLM.
        "This model's maximum context length is 4096 tokens. However, you requested 5120 tokens",
        // Gemini's OpenAI-compatible endpoint.
        "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576)."
      })
  void aRefusalForLength_isContextExceeded_andNotRetried(String detail) {
    ModelException refused = ModelException.forHttpStatus(400, detail, null);

    assertThat(refused.code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(refused.retryable()).isFalse();
    assertThat(refused.getMessage())
        .isEqualTo(
            "The model server refused the request as too long for the model (HTTP 400): " + detail);
  }

  @Test
  void aRequestTooLarge_isContextExceeded() {
    ModelException refused =
        ModelException.forHttpStatus(413, "Request exceeds the maximum size", null);

    assertThat(refused.code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(refused.retryable()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Invalid value for 'messages[1].role': 'robot' (invalid_request_error)",
        "Incorrect API key provided (invalid_request_error, invalid_api_key)",
        ""
      })
  void anyOtherBadRequest_staysModelRequestInvalid(String detail) {
    ModelException refused = ModelException.forHttpStatus(400, detail, null);

    assertThat(refused.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(refused.retryable()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(ints = {429, 500, 503})
  void aLimitOnTokensPerMinute_isARateLimitOrOutage_notTheWindow(int status) {
    ModelException refused =
        ModelException.forHttpStatus(
            status, "Rate limit reached: too many tokens per minute", Duration.ofSeconds(2));

    assertThat(refused.code()).isNotEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    assertThat(refused.retryable()).isTrue();
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(2));
  }
}
