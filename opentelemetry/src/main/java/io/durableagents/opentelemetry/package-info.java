/**
 * OpenTelemetry traces of agent sessions: {@link
 * io.durableagents.opentelemetry.OpenTelemetryAgentTracer} opens a span per model turn and per tool
 * call with the GenAI semantic-convention attributes, and {@link
 * io.durableagents.opentelemetry.TemporalTracing} gives Temporal's own workflow and activity spans,
 * which they are children of, so one trace shows a session's workflow, its activities and its model
 * calls.
 */
package io.durableagents.opentelemetry;
