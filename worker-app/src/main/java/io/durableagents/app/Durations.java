package io.durableagents.app;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The durations people write in the app's options and files: {@code 30d}, {@code 12h}, {@code
 * 1d12h}, {@code 90m}, {@code 45s}, {@code 500ms}, {@code 2w}, or ISO-8601 ({@code P30D}, {@code
 * PT10M}).
 */
public final class Durations {
  /** The forms, as error messages list them. */
  public static final String FORMS = "30d, 12h, 90m, 45s, 1d12h or ISO-8601 (P30D, PT12H)";

  private static final Pattern PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w)");

  private Durations() {}

  /**
   * The duration {@code text} means, or empty when it is none of the forms, negative, or more than
   * a {@link Duration} holds.
   */
  public static Optional<Duration> parse(String text) {
    String value = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    if (value.startsWith("p")) {
      try {
        Duration iso = Duration.parse(value.toUpperCase(Locale.ROOT));
        return iso.isNegative() ? Optional.empty() : Optional.of(iso);
      } catch (DateTimeParseException e) {
        return Optional.empty();
      }
    }
    Matcher part = PART.matcher(value);
    Duration total = Duration.ZERO;
    int end = 0;
    try {
      while (part.find() && part.start() == end) {
        long amount = Long.parseLong(part.group(1));
        total =
            total.plus(
                switch (part.group(2)) {
                  case "ms" -> Duration.ofMillis(amount);
                  case "s" -> Duration.ofSeconds(amount);
                  case "m" -> Duration.ofMinutes(amount);
                  case "h" -> Duration.ofHours(amount);
                  case "d" -> Duration.ofDays(amount);
                  default -> Duration.ofDays(Math.multiplyExact(7, amount));
                });
        end = part.end();
      }
    } catch (NumberFormatException | ArithmeticException e) {
      // More than a Duration holds (or a long): no duration anything can wait.
      return Optional.empty();
    }
    return end == value.length() && end > 0 ? Optional.of(total) : Optional.empty();
  }
}
