/**
 * Tools an agent's model may call: {@link io.durableagents.tools.Tool} (built with {@code
 * Tool.newBuilder(name)}) pairs a name, description and JSON schema with a {@link
 * io.durableagents.tools.ToolHandler} or {@link io.durableagents.tools.TypedToolHandler}, which
 * gets a {@link io.durableagents.tools.ToolContext} (idempotency key, {@link
 * io.durableagents.tools.BusinessState}). {@link io.durableagents.tools.ApprovalPolicy} gates a
 * call behind a human decision.
 */
package io.durableagents.tools;
