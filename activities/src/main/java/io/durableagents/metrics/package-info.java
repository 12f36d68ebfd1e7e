/**
 * What a worker reports of its agents' work as it happens: {@link
 * io.durableagents.metrics.AgentMetrics}, set with {@code AgentsPluginOptions.Builder.setMetrics}.
 * Module {@code durable-agents-micrometer} records it as Micrometer meters; any other metrics
 * library can implement the interface.
 */
package io.durableagents.metrics;
