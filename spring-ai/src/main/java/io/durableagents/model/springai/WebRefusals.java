package io.durableagents.model.springai;

import io.durableagents.model.RetryAfter;
import java.time.Instant;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.web.client.RestClientResponseException;

/**
 * Reads Spring Web's refusals ({@code RestClientResponseException}, {@code HttpStatusCodeException}
 * and its subclasses); loaded only when Spring Web is on the classpath.
 */
final class WebRefusals {
  private WebRefusals() {}

  static SpringAiErrors.HttpRefusal of(Throwable t) {
    if (!(t instanceof RestClientResponseException refused)) {
      return null;
    }
    HttpHeaders headers = refused.getResponseHeaders();
    return new SpringAiErrors.HttpRefusal(
        refused.getStatusCode().value(),
        refused.getResponseBodyAsString(),
        RetryAfter.from(
            name -> Optional.ofNullable(headers == null ? null : headers.getFirst(name)),
            Instant.now()));
  }
}
