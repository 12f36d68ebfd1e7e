package io.durableagents.app.agents;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An agents file the worker cannot serve: every problem found, one a line, each naming the file,
 * the line and the field ({@code agents.yaml:7: agents[0].tools[1].name: no tool named ...}). An
 * {@link IllegalArgumentException}, so the CLI reports it as a usage error (exit code 2).
 */
public final class AgentsFileException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * One problem of the file.
   *
   * @param source the file as the user named it
   * @param line 1-based line of the field, 0 when the problem is the file as a whole
   * @param path the field, as in {@code agents[0].tools[1].name}; empty for the whole document
   * @param message what is wrong
   */
  public record Problem(String source, int line, String path, String message) {
    @Override
    public String toString() {
      return source
          + (line > 0 ? ":" + line : "")
          + ": "
          + (path.isEmpty() ? "" : path + ": ")
          + message;
    }
  }

  /** Every problem found, at least one. */
  @SuppressWarnings("serial") // Records of strings; the exception is never serialized.
  private final List<Problem> problems;

  /** An exception for {@code problems}, whose lines make its message; refuses an empty list. */
  public AgentsFileException(List<Problem> problems) {
    super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("An AgentsFileException needs a problem.");
    }
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, in the order they make the message. */
  public List<Problem> problems() {
    return problems;
  }
}
