/**
 * The values of the session workflow's API that users see through {@code AgentClient}: {@link
 * io.durableagents.workflow.RunResult}, {@link io.durableagents.workflow.SessionStatus}, {@link
 * io.durableagents.workflow.ForkPatch}, {@link io.durableagents.workflow.TriggerEnvelope}, the
 * failure types ({@link io.durableagents.workflow.FailureTypes}) and limits ({@link
 * io.durableagents.workflow.Limits}). The workflow itself and its wire format are internal.
 */
package io.durableagents.workflow;
