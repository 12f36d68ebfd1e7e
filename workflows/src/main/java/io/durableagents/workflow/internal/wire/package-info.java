/**
 * The session workflow's interface and the payloads of its updates, queries and signals; not an API
 * (use {@code AgentClient}). Histories are recorded in this format, so a change must stay readable
 * by the previous release.
 */
package io.durableagents.workflow.internal.wire;
