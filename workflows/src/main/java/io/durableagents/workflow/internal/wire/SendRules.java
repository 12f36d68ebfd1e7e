package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.Limits;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a session accepts from a {@code send}: the rules of the workflow's send validator, public so
 * that a client applies exactly the same ones before anything is sent. (A refused update-with-start
 * would still create the workflow: Temporal starts it before the validator runs.)
 */
public final class SendRules {
  private SendRules() {}

  /**
   * The messages {@code request} adds to a session that has no stored conversation, in the order
   * the session adds them: its messages, the trigger's message, then its input text.
   */
  public static List<Message> inputsOf(SendRequest request) {
    List<Message> inputs = new ArrayList<>(request.messages());
    if (request.trigger() != null) {
      inputs.add(request.trigger().toMessage());
    }
    if (request.input() != null && !request.input().isEmpty()) {
      inputs.add(Message.user(request.input()));
    }
    return inputs;
  }

  /**
   * Why a session refuses these new input messages ({@link FailureTypes#INVALID_INPUT}), or null
   * when it takes them: more than {@link Limits#INPUT_CHARS} characters in all, a message that is
   * not a plain user message, or text that is not valid Unicode (an unpaired surrogate cannot be
   * serialized, so no activity could ever carry it).
   */
  public static String problem(List<Message> inputs) {
    long chars = 0;
    for (Message message : inputs) {
      if (message == null) {
        return "A sent message is null.";
      }
      chars += message.text() == null ? 0 : message.text().length();
    }
    if (chars > Limits.INPUT_CHARS) {
      return "The input is "
          + chars
          + " characters, over the limit of "
          + Limits.INPUT_CHARS
          + " per send; attach large content as an artifact instead.";
    }
    for (Message message : inputs) {
      if (message.role() != Role.USER) {
        return "Only user messages can be sent; got a '"
            + message.role()
            + "' message that does not belong to the stored conversation.";
      }
      if (!message.toolCalls().isEmpty()
          || message.toolCallId() != null
          || message.toolName() != null
          || message.result() != null) {
        return "A sent user message carries tool calls or a tool result; only text and attachments can be sent.";
      }
      int bad = unpairedSurrogate(message.text());
      if (bad >= 0) {
        return "The input is not valid Unicode text: an unpaired surrogate at character "
            + bad
            + ".";
      }
    }
    return null;
  }

  /**
   * Why a session refuses {@code runConfig} ({@link FailureTypes#INVALID_INPUT}), or null when it
   * takes it: anything but a JSON object (or none), or more than {@link Limits#RUN_CONFIG_CHARS}
   * characters of JSON.
   */
  public static String runConfigProblem(JsonNode runConfig) {
    if (runConfig == null || runConfig.isNull() || runConfig.isMissingNode()) {
      return null;
    }
    if (!runConfig.isObject()) {
      return "runConfig must be a JSON object, got "
          + runConfig.getNodeType().name().toLowerCase(Locale.ROOT)
          + ".";
    }
    int chars = runConfig.toString().length();
    if (chars > Limits.RUN_CONFIG_CHARS) {
      return "runConfig is "
          + chars
          + " characters of JSON, over the limit of "
          + Limits.RUN_CONFIG_CHARS
          + ".";
    }
    return null;
  }

  /**
   * Why the session's send validator refuses {@code request} adding {@code newInputs} (its {@link
   * #inputsOf inputs} past the stored conversation), or null: a trigger envelope over its limit, a
   * run configuration it refuses, an idempotency key or resume window it refuses, a concurrency key
   * it refuses, or inputs it refuses. The validator and the client both ask this.
   */
  public static String requestProblem(SendRequest request, List<Message> newInputs) {
    String problem =
        request.trigger() == null ? null : InputChecks.triggerProblem(request.trigger());
    if (problem == null) {
      problem = runConfigProblem(request.runConfig());
    }
    if (problem == null) {
      problem = resumeProblem(request.idempotencyKey(), request.resumeWindowMs());
    }
    if (problem == null) {
      problem = concurrencyKeyProblem(request.concurrencyKey());
    }
    return problem != null ? problem : problem(newInputs);
  }

  /**
   * Why a session refuses a send's idempotency key or resume window ({@link
   * FailureTypes#INVALID_INPUT}), or null: a key that is empty, over {@link
   * Limits#IDEMPOTENCY_KEY_CHARS} characters or holds control characters, or a negative window.
   */
  public static String resumeProblem(String idempotencyKey, Long resumeWindowMs) {
    if (idempotencyKey != null
        && (idempotencyKey.isEmpty()
            || idempotencyKey.length() > Limits.IDEMPOTENCY_KEY_CHARS
            || idempotencyKey
                .codePoints()
                .anyMatch(
                    cp ->
                        Character.isISOControl(cp)
                            || Character.getType(cp) == Character.SURROGATE))) {
      return "Invalid idempotency key: use 1-"
          + Limits.IDEMPOTENCY_KEY_CHARS
          + " characters, no control characters (got "
          + idempotencyKey.length()
          + " characters).";
    }
    if (resumeWindowMs != null && resumeWindowMs < 0) {
      return "The resume window must be 0 or more milliseconds, got " + resumeWindowMs + ".";
    }
    return null;
  }

  /**
   * Why a session refuses {@code key} as a run's concurrency key ({@link
   * FailureTypes#INVALID_INPUT}), or null when it takes it (null: no key): a blank key, one over
   * {@link Limits#CONCURRENCY_KEY_CHARS} characters, or one with control characters or unpaired
   * surrogates (the key is part of a workflow id).
   */
  public static String concurrencyKeyProblem(String key) {
    if (key == null) {
      return null;
    }
    if (key.length() > Limits.CONCURRENCY_KEY_CHARS
        || key.isBlank()
        || unpairedSurrogate(key) >= 0
        || key.codePoints().anyMatch(Character::isISOControl)) {
      return "Invalid concurrency key: use 1-"
          + Limits.CONCURRENCY_KEY_CHARS
          + " characters, no control characters (got "
          + key.length()
          + " characters).";
    }
    return null;
  }

  /**
   * Why a client must not start a session with {@code start}, or null: an agent name that is blank,
   * over {@link Limits#AGENT_NAME_CHARS} characters or holds control characters, or a model-turn
   * budget outside 1 to {@link Limits#MAX_STEPS}. Checked before update-with-start, since Temporal
   * creates the workflow even when its first send is then refused.
   */
  public static String startProblem(SessionStart start) {
    String agent = start.agent();
    if (agent != null
        && (agent.length() > Limits.AGENT_NAME_CHARS
            || agent.isBlank()
            || agent
                .codePoints()
                .anyMatch(
                    cp ->
                        Character.isISOControl(cp)
                            || Character.getType(cp) == Character.SURROGATE))) {
      return "Invalid agent name: use 1-"
          + Limits.AGENT_NAME_CHARS
          + " characters, no control characters (got "
          + agent.length()
          + " characters).";
    }
    Integer maxSteps = start.maxSteps();
    if (maxSteps != null && (maxSteps < 1 || maxSteps > Limits.MAX_STEPS)) {
      return "maxSteps must be 1 to " + Limits.MAX_STEPS + ", got " + maxSteps + ".";
    }
    return null;
  }

  /** The index of the first unpaired UTF-16 surrogate of {@code text}, or -1. */
  static int unpairedSurrogate(String text) {
    if (text == null) {
      return -1;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
          continue;
        }
        return i;
      }
      if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
