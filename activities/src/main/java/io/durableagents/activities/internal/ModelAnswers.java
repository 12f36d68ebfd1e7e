package io.durableagents.activities.internal;

import io.durableagents.conversation.ToolCall;
import io.durableagents.model.ModelResponse;
import io.durableagents.workflow.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a provider's answer before anything of it is recorded. Whatever the provider, a malformed
 * answer fails the turn with {@code model_response_invalid}, not retried: the same answer would
 * come back, and a NullPointerException deeper down would be retried as transient.
 */
final class ModelAnswers {
  private ModelAnswers() {}

  /**
   * {@code answer} with an id for every call ({@code call_<step>_<index>} where the provider gave
   * none, as the workflow would name it), or a non-retryable {@link ApplicationFailure}.
   */
  static ModelResponse checked(ModelResponse answer, int step) {
    if (answer == null) {
      throw invalid(step, List.of("the provider returned no answer (null)"));
    }
    List<String> problems = new ArrayList<>(answer.problems());
    if (!problems.isEmpty()) {
      throw invalid(step, problems);
    }
    Set<String> given = new HashSet<>();
    for (ToolCall call : answer.toolCalls()) {
      if (call.id() != null && !call.id().isBlank()) {
        given.add(call.id());
      }
    }
    List<ToolCall> named = new ArrayList<>(answer.toolCalls().size());
    for (int i = 0; i < answer.toolCalls().size(); i++) {
      ToolCall call = answer.toolCalls().get(i);
      if (call.id() != null && !call.id().isBlank()) {
        named.add(call);
        continue;
      }
      String id = "call_" + step + "_" + i;
      if (given.contains(id)) {
        problems.add(
            "tool call "
                + i
                + " has no id, and the id it would get, '"
                + id
                + "', is another call's");
      }
      named.add(new ToolCall(id, call.name(), call.arguments()));
    }
    if (!problems.isEmpty()) {
      throw invalid(step, problems);
    }
    return new ModelResponse(answer.text(), named, answer.finishReason(), answer.usage());
  }

  /** Lists at most this many problems: a hostile answer does not flood the run's error. */
  private static final int LISTED_PROBLEMS = 5;

  private static ApplicationFailure invalid(int step, List<String> problems) {
    String listed =
        String.join("; ", problems.subList(0, Math.min(problems.size(), LISTED_PROBLEMS)));
    if (problems.size() > LISTED_PROBLEMS) {
      listed += "; and " + (problems.size() - LISTED_PROBLEMS) + " more";
    }
    return ApplicationFailure.newNonRetryableFailure(
        "The model's answer for turn " + step + " is invalid: " + listed + ".",
        FailureTypes.MODEL_RESPONSE_INVALID);
  }
}
