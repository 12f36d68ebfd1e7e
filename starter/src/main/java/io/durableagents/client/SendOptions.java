package io.durableagents.client;

/**
 * Options of {@link AgentClient#send}: which agent a new session runs (null: the worker's
 * default) and a per-run step budget overriding the agent's (null: the agent's). Both apply only
 * when the send creates the session.
 */
public record SendOptions(String agent, Integer maxSteps) {
  public static final SendOptions DEFAULT = new SendOptions(null, null);

  public static SendOptions agent(String agent) {
    return new SendOptions(agent, null);
  }
}
