package io.durableagents.spring.boot.internal;

import java.util.function.Supplier;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The starter's refusals of a setting: each names its property, so that Spring Boot's failure
 * analysis says which one to fix when the application fails to start.
 */
public final class InvalidProperty {
  private InvalidProperty() {}

  /** A refusal of {@code value} at {@code property}, saying why. */
  public static InvalidConfigurationPropertyValueException of(
      String property, Object value, String reason) {
    return new InvalidConfigurationPropertyValueException(property, value, reason);
  }

  /**
   * Runs {@code apply}, turning the {@link IllegalArgumentException} or {@link
   * IllegalStateException} a builder throws for a bad value into a refusal naming {@code property}.
   */
  public static <T> T check(String property, Object value, Supplier<T> apply) {
    try {
      return apply.get();
    } catch (IllegalArgumentException | IllegalStateException e) {
      throw of(property, value, e.getMessage());
    }
  }
}
