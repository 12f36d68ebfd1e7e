package io.durableagents.app.agents;

import io.durableagents.agent.Agent;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Agents defined in a JSON or YAML file instead of code, for {@code agents worker --agents FILE}:
 * names, models, instructions, tools from the worker's {@link ToolCatalog} with their approval
 * policies, budgets and {@code onAgentDrift}. The format is in {@code docs/agents-file.md}.
 *
 * @param source the file as the user named it
 * @param agents the agents, in file order
 * @param defaultAgent the agent of sessions that name none: {@code defaultAgent}, else the first
 */
public record AgentsFile(String source, List<Agent> agents, String defaultAgent) {
  /** The environment variable that names the file when {@code --agents} is not given. */
  public static final String VARIABLE = "AGENTS_FILE";

  public AgentsFile {
    Objects.requireNonNull(source, "source");
    agents = List.copyOf(agents);
    Objects.requireNonNull(defaultAgent, "defaultAgent");
  }

  /**
   * Reads and checks {@code file}; every problem found is in the {@link AgentsFileException}, each
   * with its line and field.
   */
  public static AgentsFile load(Path file, ToolCatalog catalog) {
    String source = file.toString();
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw oneProblem(source, "no such agents file");
    } catch (MalformedInputException e) {
      throw oneProblem(source, "not UTF-8 text");
    } catch (IOException e) {
      throw oneProblem(source, "cannot read the agents file: " + e.getMessage());
    }
    return parse(source, text, catalog);
  }

  /**
   * Checks the agents file {@code text}, YAML unless {@code source} ends in {@code .json}; {@code
   * source} names it in problems.
   */
  public static AgentsFile parse(String source, String text, ToolCatalog catalog) {
    return new AgentsFileReader(source, LocatedTree.read(source, text), catalog).read();
  }

  /** The agent names, in file order. */
  public List<String> agentNames() {
    return agents.stream().map(Agent::name).toList();
  }

  private static AgentsFileException oneProblem(String source, String message) {
    return new AgentsFileException(
        List.of(new AgentsFileException.Problem(source, 0, "", message)));
  }
}
