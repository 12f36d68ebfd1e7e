/**
 * The client half of the {@code agents} command line (picocli): {@link
 * io.durableagents.cli.AgentsCli#commandLine} builds it, and {@link io.durableagents.cli.ExitCodes}
 * lists its exit statuses. The commands are its documented interface (docs/cli.md), not their
 * classes.
 */
package io.durableagents.cli;
