package io.durableagents.client;

/**
 * A fork that was started: the new session's id and where it comes from. The fork runs at once when
 * it has work (calls without a result, appended input); {@link AgentClient#awaitRun} waits for that
 * run like for any session.
 */
public record ForkResult(String sessionId, String parentSessionId, int parentStep, String patch) {}
