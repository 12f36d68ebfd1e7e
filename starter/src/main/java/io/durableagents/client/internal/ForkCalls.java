package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.Checkpoint;
import io.durableagents.client.CheckpointNotFoundException;
import io.durableagents.client.ForkResult;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionExistsException;
import io.durableagents.client.SessionIds;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.client.SessionRow;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.Trajectories;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.InputChecks;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the client reads of sessions' past from the projection (history, approvals, comparisons),
 * and the forks it starts from that past.
 */
public final class ForkCalls {
  private static final int MAX_FORK_ID_ATTEMPTS = 20;

  private final ClientCalls calls;

  /** Forks and history through {@code calls}. */
  public ForkCalls(ClientCalls calls) {
    this.calls = calls;
  }

  /** The kept checkpoint history of {@code sessionId}, newest step first. */
  public List<HistoryEntry> history(String sessionId, int limit) {
    SessionIds.requireValid(sessionId);
    return projection("history").history(sessionId, limit);
  }

  /** Approvals, oldest request first: every session's, or only those that wait for a decision. */
  public List<ApprovalRow> approvals(boolean pendingOnly) {
    return projection("approvals").approvals(pendingOnly);
  }

  /** Compares two sessions' trajectories from the projection. */
  public Trajectories.Comparison compare(String sessionA, String sessionB) {
    SessionIds.requireValid(sessionA);
    SessionIds.requireValid(sessionB);
    ProjectionReader projection = projection("compare");
    return Trajectories.compare(
        projection.messages(sessionA, -1), finishReason(projection, sessionA),
        projection.messages(sessionB, -1), finishReason(projection, sessionB));
  }

  private static String finishReason(ProjectionReader projection, String sessionId) {
    List<HistoryEntry> latest = projection.history(sessionId, 1);
    if (latest.isEmpty()) {
      throw new SessionNotFoundException(sessionId);
    }
    return latest.get(0).checkpoint() == null ? null : latest.get(0).checkpoint().finishReason();
  }

  /**
   * Starts a new session from the kept history entry {@code fromStep} of {@code sessionId} with
   * {@code patch} applied, as {@code newSessionId} or the first free {@code <sessionId>.fork-<n>};
   * returns once the fork's transcript is prepared.
   */
  public ForkResult fork(String sessionId, int fromStep, ForkPatch patch, String newSessionId) {
    SessionIds.requireValid(sessionId);
    ProjectionReader projection = projection("fork");
    ForkPatch applied = patch == null ? ForkPatch.NONE : patch;
    ForkSource source = new ForkSource(sessionId, fromStep, applied);
    String problem = InputChecks.forkProblem(source);
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    HistoryEntry kept =
        projection
            .historyEntry(sessionId, fromStep)
            .orElseThrow(() -> notKept(projection, sessionId, fromStep));
    if (kept.superseded()) {
      // Its transcript is kept aside, but a fork copies the session's current one.
      throw new InvalidInputException(
          "Entry "
              + fromStep
              + " of session '"
              + sessionId
              + "' was superseded by the "
              + kept.supersededBy()
              + "; only entries of the session's current line can be forked.");
    }
    Checkpoint entry = kept.checkpoint();
    String patchProblem = applied.problemWith(entry.messages());
    if (patchProblem != null) {
      throw new InvalidInputException(patchProblem);
    }
    String agent = projection.session(sessionId).map(SessionRow::agent).orElse(null);
    if (newSessionId != null) {
      SessionIds.requireValid(newSessionId);
      if (projection.session(newSessionId).isPresent()) {
        throw new SessionExistsException(newSessionId);
      }
      return startFork(newSessionId, agent, source)
          .orElseThrow(() -> new SessionExistsException(newSessionId));
    }
    // Two forks of one session at once may pick the same free id: the one that loses takes the
    // next.
    for (int attempt = 1; attempt <= MAX_FORK_ID_ATTEMPTS; attempt++) {
      Optional<ForkResult> fork = startFork(firstFreeForkId(sessionId), agent, source);
      if (fork.isPresent()) {
        return fork.get();
      }
    }
    throw new AgentClientException(
        "Could not find a free fork id for '"
            + sessionId
            + "' in "
            + MAX_FORK_ID_ATTEMPTS
            + " tries (many forks at once); pass one with newSessionId.");
  }

  private static CheckpointNotFoundException notKept(
      ProjectionReader projection, String sessionId, int step) {
    List<Integer> kept = new ArrayList<>();
    for (HistoryEntry keptEntry : projection.history(sessionId, 0)) {
      kept.add(keptEntry.step());
    }
    Collections.sort(kept);
    return new CheckpointNotFoundException(sessionId, step, kept);
  }

  /**
   * Creates the fork's workflow and waits until its transcript is prepared, in one call
   * (update-with-start). An id in use by a running session is refused by Temporal; the id of a
   * closed workflow (a refused fork or first send) may be used again. Empty when the id is taken.
   */
  private Optional<ForkResult> startFork(String forkId, String agent, ForkSource source) {
    WorkflowOptions options =
        WorkflowOptions.newBuilder()
            .setWorkflowId(forkId)
            .setTaskQueue(calls.options().getTaskQueue())
            .setWorkflowIdConflictPolicy(WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
            .setMemo(
                Map.of(
                    "parentSessionId", source.parentSessionId(),
                    "parentStep", source.parentStep(),
                    "patch", source.patch().summary()))
            .setStaticSummary(
                SessionCalls.staticSummary(agent)
                    + " · fork of "
                    + source.parentSessionId()
                    + " at step "
                    + source.parentStep())
            .build();
    ForkOutcome outcome;
    try {
      outcome = calls.startPrepared(options, new SessionStart(forkId, agent, null, source));
    } catch (WorkflowServiceException e) {
      throw new AgentClientException(
          "Cannot fork '" + source.parentSessionId() + "': " + ClientFailures.rootMessage(e), e);
    }
    if (outcome == null) {
      return Optional.empty();
    }
    if (outcome.isRefused()) {
      throw new InvalidInputException(
          "The fork of '"
              + source.parentSessionId()
              + "' at step "
              + source.parentStep()
              + " was refused: "
              + outcome.refusal());
    }
    return Optional.of(
        new ForkResult(
            forkId, source.parentSessionId(), source.parentStep(), source.patch().summary()));
  }

  private String firstFreeForkId(String sessionId) {
    for (int n = 1; ; n++) {
      String candidate = sessionId + ".fork-" + n;
      if (candidate.length() > 200) {
        throw new IllegalArgumentException(
            "Session id '" + sessionId + "' is too long to fork with a default id.");
      }
      if (!sessionExists(candidate)) {
        return candidate;
      }
    }
  }

  /** A workflow with that id exists (in any state), or the projection has rows for it. */
  private boolean sessionExists(String sessionId) {
    ProjectionReader projection = calls.options().getProjection();
    if (projection != null && projection.session(sessionId).isPresent()) {
      return true;
    }
    try {
      calls.client().newUntypedWorkflowStub(sessionId).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    } catch (WorkflowServiceException e) {
      if (ClientFailures.isNotFound(e)) {
        return false;
      }
      throw new AgentClientException(
          "Cannot check session '" + sessionId + "': " + ClientFailures.rootMessage(e), e);
    }
  }

  /**
   * The client's projection, for {@code what}.
   *
   * @throws IllegalStateException when the client was built without one
   */
  private ProjectionReader projection(String what) {
    ProjectionReader projection = calls.options().getProjection();
    if (projection == null) {
      throw new IllegalStateException(
          what
              + " reads the projection: build the client with"
              + " AgentClientOptions.newBuilder().setProjection(ProjectionReader.open(jdbcUrl))");
    }
    return projection;
  }
}
