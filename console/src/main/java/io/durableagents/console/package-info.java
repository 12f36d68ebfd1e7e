/**
 * The back office served from your own process: {@link io.durableagents.console.AgentConsole}
 * serves the approvals inbox, the session pages and their REST API over an {@code AgentClient} and
 * a {@code ProjectionReader}, configured with {@link io.durableagents.console.ConsoleOptions} and
 * authenticated as {@link io.durableagents.console.ConsoleAuth} says.
 */
package io.durableagents.console;
