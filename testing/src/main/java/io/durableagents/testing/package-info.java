/**
 * Testing applications' agents (test scope): {@link io.durableagents.testing.AgentTestEnvironment}
 * runs sessions on Temporal's in-memory test server with the plugin registered; {@link
 * io.durableagents.testing.SessionReplayer} replays recorded session histories with the current
 * workflow code before a deploy.
 */
package io.durableagents.testing;
