/**
 * The workers' agent metrics as Micrometer meters: {@link
 * io.durableagents.micrometer.MicrometerAgentMetrics}, given to {@code
 * AgentsPluginOptions.Builder.setMetrics}. The meters are listed in {@code docs/observability.md}.
 */
package io.durableagents.micrometer;
