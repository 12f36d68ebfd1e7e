package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.app.WorkerConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --agents FILE} / {@code AGENTS_FILE} of {@code agents worker} and {@code agents dev}. */
class AgentsFileOptionTest {
  private record Outcome(int exitCode, String out, String err) {}

  private static final String BAD =
      """
      agents:
        - name: concierge
          tools:
            - name: serach_flights
          onAgentDrift: loud
      """;

  @TempDir Path dir;

  private static Outcome execute(Map<String, String> env, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(env);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return new Outcome(commandLine.execute(args), out.toString(), err.toString());
  }

  private static WorkerConfig workerConfig(Map<String, String> env, String... args) {
    CommandLine commandLine = AgentsMain.commandLine(env);
    commandLine.parseArgs(args);
    WorkerCommand worker = commandLine.getSubcommands().get("worker").getCommand();
    return worker.options.config();
  }

  @Test
  void withoutAFile_theWorkerServesTheDemoAgent() {
    assertThat(workerConfig(Map.of(), "worker").agents()).isNull();
  }

  @Test
  void theOptionAndTheVariable_loadTheFile_andTheOptionWins() throws IOException {
    Path one = Files.writeString(dir.resolve("one.yaml"), "agents:\n  - name: one\n");
    Path two = Files.writeString(dir.resolve("two.json"), "{\"agents\": [{\"name\": \"two\"}]}");
    Map<String, String> env = Map.of("AGENTS_FILE", two.toString());

    assertThat(workerConfig(Map.of(), "worker", "--agents", one.toString()).agents().agentNames())
        .containsExactly("one");
    assertThat(workerConfig(env, "worker").agents().agentNames()).containsExactly("two");
    WorkerConfig both = workerConfig(env, "worker", "--agents", one.toString());
    assertThat(both.agents().agentNames()).containsExactly("one");
    assertThat(WorkerCommand.readyLine(both)).endsWith(", agents one from " + one);
  }

  @Test
  void worker_withABadFile_exits2_listingEachProblemWithItsLine() throws IOException {
    Path bad = Files.writeString(dir.resolve("agents.yaml"), BAD);

    // A port nothing listens on: the file is checked before the worker connects.
    Outcome outcome =
        execute(Map.of(), "worker", "--agents", bad.toString(), "--temporal", "127.0.0.1:1");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(2);
    assertThat(outcome.err().lines())
        .containsExactly(
            bad
                + ":4: agents[0].tools[0].name: no tool named 'serach_flights' in this worker's"
                + " catalog; known: get_weather, find_restaurant, book_table",
            bad
                + ":5: agents[0].onAgentDrift: unknown value 'loud'; expected one of: warn,"
                + " error, ignore");
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void dev_withABadFileInTheEnvironment_exits2_beforeItStartsAServer() throws IOException {
    Path bad = Files.writeString(dir.resolve("agents.yaml"), BAD);

    Outcome outcome =
        execute(Map.of("AGENTS_FILE", bad.toString()), "dev", "--embedded", "--port", "1");

    assertThat(outcome.exitCode()).as(outcome.err()).isEqualTo(2);
    assertThat(outcome.err()).startsWith(bad + ":4: agents[0].tools[0].name: no tool named");
    assertThat(outcome.err()).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(outcome.out()).isEmpty();
  }

  @Test
  void aMissingFile_exits2_namingIt() {
    Path missing = dir.resolve("missing.yaml");

    Outcome outcome = execute(Map.of(), "worker", "--agents", missing.toString());

    assertThat(outcome.exitCode()).isEqualTo(2);
    assertThat(outcome.err().strip()).isEqualTo(missing + ": no such agents file");
  }
}
