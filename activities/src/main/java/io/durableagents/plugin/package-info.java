/**
 * The Temporal worker plugin: {@link io.durableagents.plugin.AgentsPlugin}, configured with {@link
 * io.durableagents.plugin.AgentsPluginOptions} (agents, model provider, store, task queues),
 * registers the session workflow and the {@code agents.*} activities on the workers of a {@code
 * WorkerFactory}.
 */
package io.durableagents.plugin;
