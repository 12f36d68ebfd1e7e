/**
 * Where a worker's activities open and close a trace span around each model turn and tool call:
 * {@link io.durableagents.tracing.AgentTracer}, set with {@code
 * AgentsPluginOptions.Builder.setTracer}. Module {@code durable-agents-opentelemetry} implements it
 * with OpenTelemetry spans; any other tracing library can implement the interfaces.
 */
package io.durableagents.tracing;
