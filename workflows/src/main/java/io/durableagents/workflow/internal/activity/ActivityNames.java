package io.durableagents.workflow.internal.activity;

/** The prefix of every activity type this product registers. */
public final class ActivityNames {
  public static final String PREFIX = "agents.";

  private ActivityNames() {}
}
