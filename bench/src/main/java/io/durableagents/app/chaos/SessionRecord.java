package io.durableagents.app.chaos;

import io.durableagents.workflow.RunResult;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One session of a chaos run, as its driver planned and saw it: its agent, how its approval is
 * decided, its fork, its final result or why it has none.
 */
final class SessionRecord {
  /** How a gated session's approvals are decided. */
  enum Channel {
    /** {@code POST /api/sessions/{id}/approvals/{approvalId}} on the console. */
    REST,
    /** {@code agents approve SESSION APPROVAL_ID --by chaos-cli}. */
    CLI
  }

  /** The name the CLI decisions are made under ({@code --by}). */
  static final String CLI_IDENTITY = "chaos-cli";

  final String id;
  final String agent;
  final Channel channel;
  final boolean forkPlanned;
  final long arrivalMillis;

  /** The source session of a fork, and the step it was forked from; null and -1 otherwise. */
  final String forkOf;

  final int fromStep;

  /**
   * Approval id to how the driver's decision ended: {@code decided}, or {@code already decided}.
   */
  final Map<String, String> decisions = new ConcurrentHashMap<>();

  volatile RunResult result;
  volatile String failure;
  volatile String lastStep = "planned";
  volatile SessionRecord fork;

  SessionRecord(String id, String agent, Channel channel, boolean forkPlanned, long arrivalMillis) {
    this(id, agent, channel, forkPlanned, arrivalMillis, null, -1);
  }

  private SessionRecord(
      String id,
      String agent,
      Channel channel,
      boolean forkPlanned,
      long arrivalMillis,
      String forkOf,
      int fromStep) {
    this.id = id;
    this.agent = agent;
    this.channel = channel;
    this.forkPlanned = forkPlanned;
    this.arrivalMillis = arrivalMillis;
    this.forkOf = forkOf;
    this.fromStep = fromStep;
  }

  /** The fork of this session from {@code step}, driven like a session of its own. */
  SessionRecord forked(String forkId, int step) {
    return new SessionRecord(forkId, agent, channel, false, arrivalMillis, id, step);
  }

  boolean gated() {
    return ChaosAgents.GATED.equals(agent);
  }

  boolean isFork() {
    return forkOf != null;
  }

  /** The identity the session's decisions must carry: the console's user, or the CLI's name. */
  String identity(String consoleIdentity) {
    return channel == Channel.CLI ? CLI_IDENTITY : consoleIdentity;
  }
}
