package io.durableagents.workflow;

import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One agent session. The workflow id is the session id; the workflow lives as long as the
 * conversation and runs one agent loop per message it is sent.
 *
 * <p>Payloads are plain JSON, so any Temporal SDK can drive a session: start it with
 * {@link SessionStart}, send with update {@code send} ({@link SendRequest} in, {@link RunResult}
 * out), read it with query {@code status}.
 */
@WorkflowInterface
public interface AgentSessionWorkflow {

  /** Workflow type name, stable across versions. */
  String WORKFLOW_TYPE = "AgentSession";

  @WorkflowMethod(name = WORKFLOW_TYPE)
  void run(SessionStart start);

  /**
   * Starts or continues a run with the given input and returns that run's result once it
   * settles. Use it with update-with-start so the first message creates the session.
   */
  @UpdateMethod(name = "send")
  RunResult send(SendRequest request);

  @UpdateValidatorMethod(updateName = "send")
  void validateSend(SendRequest request);

  @QueryMethod(name = "status")
  SessionStatus status();
}
