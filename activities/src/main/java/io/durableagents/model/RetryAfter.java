package io.durableagents.model;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads how long a model server asked us to wait before a retry: {@code Retry-After} (seconds or
 * HTTP date), or {@code retry-after-ms}. Providers pass the result to {@link
 * ModelException#transientFailure}, so the model activity's next attempt waits that long.
 */
public final class RetryAfter {
  private RetryAfter() {}

  /**
   * The wait the headers ask for, or null when they give none: {@code retry-after-ms} (sent by
   * OpenAI, more precise) wins over {@code Retry-After}, which is delay-seconds or an HTTP date
   * (RFC 9110 §10.2.3). A date in the past means no wait.
   *
   * @param header a header's first value by its name (case-insensitive), empty when absent
   */
  public static Duration from(Function<String, Optional<String>> header, Instant now) {
    Optional<String> millis = header.apply("retry-after-ms");
    if (millis.isPresent()) {
      Duration parsed = millis(millis.get());
      if (parsed != null) {
        return parsed;
      }
    }
    return header.apply("retry-after").map(value -> parse(value, now)).orElse(null);
  }

  /** {@code Retry-After} as delay-seconds or an HTTP date; null when it is neither. */
  public static Duration parse(String value, Instant now) {
    String v = value.strip();
    if (v.isEmpty()) {
      return null;
    }
    try {
      double seconds = Double.parseDouble(v);
      if (seconds >= 0 && !Double.isInfinite(seconds)) {
        return Duration.ofMillis(Math.round(seconds * 1000));
      }
      return null;
    } catch (NumberFormatException notSeconds) {
      // an HTTP date then
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return wait.isNegative() ? Duration.ZERO : wait;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration millis(String value) {
    try {
      double ms = Double.parseDouble(value.strip());
      return ms >= 0 && !Double.isInfinite(ms) ? Duration.ofMillis(Math.round(ms)) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
