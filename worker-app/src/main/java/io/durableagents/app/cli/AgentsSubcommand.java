package io.durableagents.app.cli;

/**
 * A subcommand that another jar adds to {@code agents}: a picocli {@code @Command} class with a
 * public no-argument constructor that implements this interface and is named in that jar's {@code
 * META-INF/services/io.durableagents.app.cli.AgentsSubcommand}. {@link AgentsMain} lists the ones
 * on the classpath after its own commands, so a tool such as {@code bench} (the {@code
 * durable-agents-bench} module) ships apart from the app and still runs as {@code agents bench}.
 */
public interface AgentsSubcommand {}
