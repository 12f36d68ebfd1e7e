package io.durableagents.agent;

/**
 * A required {@link io.durableagents.tools.ToolProvider} of an agent could not list its tools: the
 * run that starts fails its start (after the resolution's attempts) with this message, which names
 * the agent and the provider.
 */
public class ToolProviderUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** {@code message} names the agent and the provider; {@code cause} is what the provider threw. */
  public ToolProviderUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
