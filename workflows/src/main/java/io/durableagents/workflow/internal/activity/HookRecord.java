package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What one tool hook did to a call, as the call's activity recorded it: the workflow never asks a
 * hook again, and the call's tool message in the checkpoint history says it.
 *
 * @param hook the hook's name
 * @param action what it did
 * @param reason a denial's reason, or why the hook failed; null otherwise
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record HookRecord(
    @JsonProperty("hook") String hook,
    @JsonProperty("action") Action action,
    @JsonProperty("reason") String reason) {

  /** What a hook did to a call. */
  public enum Action {
    DENIED("denied"),
    REWROTE_ARGUMENTS("rewrote_arguments"),
    REPLACED_RESULT("replaced_result"),
    FAILED("failed"),
    TIMED_OUT("timed_out");

    private final String value;

    Action(String value) {
      this.value = value;
    }

    @JsonValue
    public String value() {
      return value;
    }

    @JsonCreator
    public static Action fromValue(String value) {
      for (Action action : values()) {
        if (action.value.equals(value)) {
          return action;
        }
      }
      throw new IllegalArgumentException("Unknown hook action '" + value + "'.");
    }
  }

  /** One line for the history: {@code hook 'name' denied: reason}. */
  public String describe() {
    String line = "hook '" + hook + "' " + action.value().replace('_', ' ');
    return reason == null ? line : line + ": " + reason;
  }
}
