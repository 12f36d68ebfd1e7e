package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The store's side of a session's end of life and of its start again after one. */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface LifecycleActivities {

  /**
   * Where a session that a new workflow starts under a known id stands in the store: its newest
   * entry, described as a fork of it would be, with the store's session row taken over by the new
   * workflow execution ({@code request.executionId()}) and marked open again. Null when the store
   * has no such session (a new session). Idempotent.
   */
  @ActivityMethod
  ForkState restoreSession(SessionRef request);

  /**
   * Moves a session back to its history entry {@code request.step()}: the entries after it are
   * marked superseded by {@code request.supersededBy()} (their transcripts kept with them), the
   * session row is taken over by {@code request.executionId()} and stands at the entry again.
   * Answers the entry described as a fork of it would be, except that {@code run} and {@code step}
   * are the session's newest (the numbering goes on past the superseded entries); null when the
   * store does not keep that entry (nothing is changed). Idempotent.
   */
  @ActivityMethod
  ForkState resetSession(SessionReset request);

  /**
   * Marks the session closed in the store at {@code closedAt}; when {@code delete}, removes its
   * rows instead (its checkpoint history and the transcript it refers to kept when {@code
   * keepHistory}). Idempotent.
   */
  @ActivityMethod
  void closeSession(SessionClose close);
}
