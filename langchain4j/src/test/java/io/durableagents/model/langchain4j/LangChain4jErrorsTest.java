package io.durableagents.model.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.exception.UnresolvedModelServerException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.output.FinishReason;
import io.durableagents.model.ModelException;
import io.durableagents.workflow.FailureTypes;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The failures of LangChain4j integrations other than OpenAI's (which the provider test meets on
 * the wire), as LangChain4j's exception mapper builds them: retried or not, and with which code.
 */
class LangChain4jErrorsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static ModelException classify(Throwable error) {
    return LangChain4jErrors.classify(error, MAPPER);
  }

  @Test
  void httpStatuses_underLangChain4jsTypes_followTheStatus() {
    ModelException auth =
        classify(
            new AuthenticationException(
                new HttpException(
                    401, "{\"error\":{\"message\":\"Incorrect API key\",\"type\":\"auth\"}}")));
    ModelException missing =
        classify(new ModelNotFoundException(new HttpException(404, "no such model")));
    ModelException timeout = classify(new TimeoutException(new HttpException(408, "slow")));
    ModelException overloaded =
        classify(new InternalServerException(new HttpException(529, "overloaded")));

    assertThat(auth.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(auth.retryable()).isFalse();
    assertThat(auth.getMessage()).contains("HTTP 401", "Incorrect API key (auth)");
    assertThat(missing.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(missing.getMessage()).contains("no such model");
    assertThat(timeout.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(timeout.retryable()).isTrue();
    assertThat(overloaded.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(overloaded.retryable()).isTrue();
  }

  @Test
  void withoutAStatus_theExceptionsTypeDecides() {
    assertThat(classify(new RateLimitException("slow down")))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_RATE_LIMITED))
        .satisfies(e -> assertThat(e.retryable()).isTrue())
        .satisfies(e -> assertThat(e.retryAfter()).isNull());
    assertThat(classify(new TimeoutException(new HttpTimeoutException("request timed out"))))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_TIMEOUT))
        .satisfies(e -> assertThat(e.retryable()).isTrue());
    assertThat(classify(new InternalServerException("boom")).code())
        .isEqualTo(FailureTypes.MODEL_UNAVAILABLE);
    assertThat(classify(new RetriableException("try again")))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_UNAVAILABLE))
        .satisfies(e -> assertThat(e.retryable()).isTrue());
    assertThat(classify(new InvalidRequestException("bad")))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID))
        .satisfies(e -> assertThat(e.retryable()).isFalse());
    assertThat(classify(new NonRetriableException("no")).retryable()).isFalse();
    assertThat(classify(new UnsupportedFeatureException("tools are not supported")))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID))
        .satisfies(e -> assertThat(e.getMessage()).contains("tools are not supported"));
    assertThat(classify(new UnresolvedModelServerException(new UnresolvedAddressException())))
        .satisfies(e -> assertThat(e.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID))
        .satisfies(e -> assertThat(e.getMessage()).contains("does not resolve"));
  }

  @Test
  void aContentFilterRefusal_isPermanent_andSaysSo() {
    ModelException failure =
        classify(
            new ContentFilteredException(
                new HttpException(
                    400,
                    "{\"error\":{\"message\":\"The response was filtered\","
                        + "\"code\":\"content_filter\"}}")));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("content filter", "The response was filtered");
  }

  @Test
  void wrappersAreLookedThrough_andAnUnknownFailureIsAPermanentModelError() {
    assertThat(classify(new CompletionException(new RateLimitException("slow down"))).code())
        .isEqualTo(FailureTypes.MODEL_RATE_LIMITED);
    ModelException unknown = classify(new LangChain4jException("something odd"));
    assertThat(unknown.code()).isEqualTo(FailureTypes.MODEL_ERROR);
    assertThat(unknown.retryable()).isFalse();
    assertThat(unknown.getMessage()).contains("LangChain4jException", "something odd");
  }

  @Test
  void finishReasons_otherIsOther_andABlockingAnswerWithoutOneIsJudgedByItsContent() {
    assertThat(ChatResponses.finishReason(FinishReason.OTHER, false)).isEqualTo("other");
    assertThat(ChatResponses.finishReason(FinishReason.STOP, true)).isEqualTo("tool-calls");
    assertThat(ChatResponses.finishReason(null, true)).isEqualTo("tool-calls");
    assertThat(ChatResponses.finishReason(null, false)).isEqualTo("stop");
  }
}
