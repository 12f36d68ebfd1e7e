package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RetryAfterTest {
  private static final Instant NOW = Instant.parse("2025-01-01T00:00:00Z");

  @Test
  void acceptsSecondsAndHttpDates() {
    assertThat(RetryAfter.parse("1", NOW)).isEqualTo(Duration.ofSeconds(1));
    assertThat(RetryAfter.parse(" 120 ", NOW)).isEqualTo(Duration.ofMinutes(2));
    assertThat(RetryAfter.parse("Wed, 01 Jan 2025 00:00:30 GMT", NOW))
        .isEqualTo(Duration.ofSeconds(30));
    assertThat(RetryAfter.parse("Tue, 31 Dec 2024 23:59:00 GMT", NOW)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("soon", NOW)).isNull();
    assertThat(RetryAfter.parse("-5", NOW)).isNull();
  }

  @Test
  void millisecondsWin_andAMalformedValueFallsBackToRetryAfter() {
    assertThat(RetryAfter.from(headers(Map.of("retry-after-ms", "250", "retry-after", "9")), NOW))
        .isEqualTo(Duration.ofMillis(250));
    assertThat(RetryAfter.from(headers(Map.of("retry-after-ms", "x", "retry-after", "9")), NOW))
        .isEqualTo(Duration.ofSeconds(9));
    assertThat(RetryAfter.from(headers(Map.of()), NOW)).isNull();
  }

  private static java.util.function.Function<String, Optional<String>> headers(
      Map<String, String> values) {
    return name -> Optional.ofNullable(values.get(name));
  }
}
