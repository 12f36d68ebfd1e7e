package io.durableagents.app.agents;

import io.durableagents.agent.Agent;
import io.durableagents.mcp.McpToolProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
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
 * @param mcpServers the file's MCP servers, one connection each, closed when the worker stops
 */
public record AgentsFile(
    String source, List<Agent> agents, String defaultAgent, List<McpToolProvider> mcpServers) {
  /** The environment variable that names the file when {@code --agents} is not given. */
  public static final String VARIABLE = "AGENTS_FILE";

  /**
   * The largest agents file read, in bytes (1 MiB): agents with long instructions take a few
   * kilobytes, and the YAML parser would spend minutes on a file of many megabytes before it gave
   * up. A larger file, or an endless one such as {@code /dev/zero}, is refused without being read.
   */
  public static final int MAX_FILE_BYTES = 1 << 20;

  /** Refuses a null source or default agent, and copies the agents. */
  public AgentsFile {
    Objects.requireNonNull(source, "source");
    agents = List.copyOf(agents);
    Objects.requireNonNull(defaultAgent, "defaultAgent");
    mcpServers = List.copyOf(mcpServers);
  }

  /** A file of these agents, without MCP servers. */
  public AgentsFile(String source, List<Agent> agents, String defaultAgent) {
    this(source, agents, defaultAgent, List.of());
  }

  /**
   * Reads and checks {@code file}; every problem found is in the {@link AgentsFileException}, each
   * with its line and field.
   */
  public static AgentsFile load(Path file, ToolCatalog catalog) {
    String source = file.toString();
    String text;
    try {
      text = readBounded(file);
    } catch (NoSuchFileException e) {
      throw oneProblem(source, "no such agents file");
    } catch (CharacterCodingException e) {
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

  /** The file's UTF-8 text; a problem when it is over {@link #MAX_FILE_BYTES}. */
  private static String readBounded(Path file) throws IOException {
    // A regular file is refused by its size, unread; other files (devices, pipes) by reading.
    boolean tooLarge = Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES;
    byte[] bytes = new byte[0];
    if (!tooLarge) {
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes(MAX_FILE_BYTES + 1);
      }
      tooLarge = bytes.length > MAX_FILE_BYTES;
    }
    if (tooLarge) {
      throw oneProblem(
          file.toString(),
          "larger than " + (MAX_FILE_BYTES >> 20) + " MiB, the limit of an agents file; not read");
    }
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(bytes))
        .toString();
  }

  private static AgentsFileException oneProblem(String source, String message) {
    return new AgentsFileException(
        List.of(new AgentsFileException.Problem(source, 0, "", message)));
  }
}
