package io.durableagents.workflow.internal.activity;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * Runs one tool call: validates the arguments against the tool's JSON schema, then executes it.
 * Invalid arguments and permanent tool errors come back as error results; transient errors fail the
 * attempt so the tool's retry policy applies.
 */
@ActivityInterface(namePrefix = ActivityNames.PREFIX)
public interface ToolActivities {

  @ActivityMethod
  ToolOutcome executeTool(ToolRequest request);
}
