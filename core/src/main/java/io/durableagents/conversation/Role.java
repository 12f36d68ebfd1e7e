package io.durableagents.conversation;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Who a {@link Message} is from. Each role has a JSON value ({@link #value()}, also its {@link
 * #toString()}): the payloads, the projection's {@code role} columns and the model providers' wires
 * use it.
 */
public enum Role {
  /** The instructions the model gets. */
  SYSTEM("system"),
  /** What a person (or a trigger) sends. */
  USER("user"),
  /** The model's answers and tool calls. */
  ASSISTANT("assistant"),
  /** One tool call's result. */
  TOOL("tool");

  /** How much of an unknown role the refusal shows: it may come from any client. */
  private static final int SHOWN_CODE_POINTS = 40;

  private final String value;

  Role(String value) {
    this.value = value;
  }

  /** The JSON value, e.g. {@code assistant}. */
  @JsonValue
  public String value() {
    return value;
  }

  /**
   * The role whose JSON value is {@code value}; null for null.
   *
   * @throws IllegalArgumentException for any other value, naming it (cut short, without control
   *     characters) and the roles there are
   */
  @JsonCreator
  public static Role fromValue(String value) {
    if (value == null) {
      return null;
    }
    for (Role role : values()) {
      if (role.value.equals(value)) {
        return role;
      }
    }
    throw new IllegalArgumentException(
        "Unknown role '" + shown(value) + "'; roles are system, user, assistant and tool.");
  }

  private static String shown(String value) {
    StringBuilder out = new StringBuilder();
    value
        .codePoints()
        .limit(SHOWN_CODE_POINTS)
        .forEach(
            cp ->
                out.appendCodePoint(
                    Character.isISOControl(cp) || Character.getType(cp) == Character.SURROGATE
                        ? '?'
                        : cp));
    return value.codePointCount(0, value.length()) > SHOWN_CODE_POINTS
        ? out + "..."
        : out.toString();
  }

  @Override
  public String toString() {
    return value;
  }
}
