package io.durableagents.client;

import io.durableagents.workflow.FailureTypes;
import java.util.List;

/**
 * A fork named a step the session's history does not keep (never reached, or dropped past the
 * store's {@code historyLimit}). Code {@code checkpoint_not_found}; the message lists the kept
 * steps.
 */
public class CheckpointNotFoundException extends AgentClientException {
  /** The steps the projection keeps of the session, oldest first. */
  private final List<Integer> keptSteps;

  /** Step {@code step} of {@code sessionId} is not kept; {@code keptSteps} are. */
  public CheckpointNotFoundException(String sessionId, int step, List<Integer> keptSteps) {
    super(
        FailureTypes.CHECKPOINT_NOT_FOUND
            + ": session '"
            + sessionId
            + "' has no kept history entry at step "
            + step
            + "; kept steps: "
            + (keptSteps.isEmpty() ? "none" : keptSteps)
            + ".");
    this.keptSteps = List.copyOf(keptSteps);
  }

  /** The steps the session's history keeps. */
  public List<Integer> keptSteps() {
    return keptSteps;
  }
}
