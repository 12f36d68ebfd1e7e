package io.durableagents.model.springai;

import io.durableagents.model.RetryAfter;
import java.time.Instant;
import java.util.Optional;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/** Reads WebFlux's refusals; loaded only when WebFlux is on the classpath. */
final class WebFluxRefusals {
  private WebFluxRefusals() {}

  static SpringAiErrors.HttpRefusal of(Throwable t) {
    if (!(t instanceof WebClientResponseException refused)) {
      return null;
    }
    return new SpringAiErrors.HttpRefusal(
        refused.getStatusCode().value(),
        refused.getResponseBodyAsString(),
        RetryAfter.from(
            name -> Optional.ofNullable(refused.getHeaders().getFirst(name)), Instant.now()));
  }
}
