package io.durableagents.workflow;

import io.durableagents.session.RunStatus;
import io.temporal.common.SearchAttributeKey;
import java.util.List;
import java.util.Map;

/**
 * The search attributes a session upserts, so Temporal's own tools (the Web UI, {@code temporal
 * workflow list --query}, visibility APIs) can find sessions by agent and status. They must be
 * registered on the namespace once; a worker that finds them missing logs the commands below and
 * runs sessions without them.
 *
 * <pre>{@code
 * temporal operator search-attribute create --name AgentName --type Keyword
 * temporal operator search-attribute create --name AgentStatus --type Keyword
 * temporal operator search-attribute create --name AgentPendingApprovals --type Int
 * temporal operator search-attribute create --name AgentParentSession --type Keyword
 * temporal operator search-attribute create --name AgentConcurrencyKey --type Keyword
 * }</pre>
 */
public final class SessionSearchAttributes {
  /** The agent the session talks to. */
  public static final SearchAttributeKey<String> AGENT_NAME =
      SearchAttributeKey.forKeyword("AgentName");

  /**
   * {@code running}, {@code queued}, {@code awaiting-approval}, {@code finished}, {@code failed},
   * {@code cancelled} or {@code closed}.
   */
  public static final SearchAttributeKey<String> AGENT_STATUS =
      SearchAttributeKey.forKeyword("AgentStatus");

  /** Approvals the session waits for: 0 or 1. */
  public static final SearchAttributeKey<Long> PENDING_APPROVALS =
      SearchAttributeKey.forLong("AgentPendingApprovals");

  /**
   * The session a fork was taken from, or the parent of a sub-agent session; absent on other
   * sessions.
   */
  public static final SearchAttributeKey<String> PARENT_SESSION =
      SearchAttributeKey.forKeyword("AgentParentSession");

  /**
   * The concurrency key of the session's current or last run; absent on sessions whose runs have
   * none.
   */
  public static final SearchAttributeKey<String> CONCURRENCY_KEY =
      SearchAttributeKey.forKeyword("AgentConcurrencyKey");

  /** {@link #AGENT_STATUS} of a session whose run is in progress. */
  public static final String RUNNING = "running";

  /**
   * {@link #AGENT_STATUS} of a session whose workflow completed (closed by a client or by its idle
   * timeout); a send starts it again.
   */
  public static final String CLOSED = "closed";

  /** Every value {@link #AGENT_STATUS} takes. */
  public static final List<String> STATUSES =
      List.of(
          RUNNING,
          RunStatus.QUEUED.value(),
          RunStatus.AWAITING_APPROVAL.value(),
          RunStatus.FINISHED.value(),
          RunStatus.FAILED.value(),
          RunStatus.CANCELLED.value(),
          CLOSED);

  /** Every key, in the order above. */
  public static final List<SearchAttributeKey<?>> ALL =
      List.of(AGENT_NAME, AGENT_STATUS, PENDING_APPROVALS, PARENT_SESSION, CONCURRENCY_KEY);

  private SessionSearchAttributes() {}

  /**
   * The {@link #AGENT_STATUS} of a session in {@code runStatus}: its JSON value, except {@code
   * running} for a run in progress; null for a session without a run yet.
   */
  public static String agentStatus(RunStatus runStatus) {
    if (runStatus == null || runStatus == RunStatus.IDLE) {
      return null;
    }
    return runStatus == RunStatus.IN_PROGRESS ? RUNNING : runStatus.value();
  }

  /** Each key's name and its type as Temporal's CLI spells it ({@code Keyword}, {@code Int}). */
  public static Map<String, String> cliTypes() {
    Map<String, String> types = new java.util.LinkedHashMap<>();
    for (SearchAttributeKey<?> key : ALL) {
      types.put(key.getName(), cliType(key));
    }
    return types;
  }

  /** The {@code temporal operator search-attribute create} commands that register every key. */
  public static List<String> createCommands() {
    return cliTypes().entrySet().stream()
        .map(
            e ->
                "temporal operator search-attribute create --name "
                    + e.getKey()
                    + " --type "
                    + e.getValue())
        .toList();
  }

  /**
   * {@link #createCommands()} for {@code namespace}: with {@code --namespace} unless it is {@code
   * default}.
   */
  public static List<String> createCommands(String namespace) {
    String suffix =
        namespace == null || namespace.equals("default") ? "" : " --namespace " + namespace;
    return createCommands().stream().map(command -> command + suffix).toList();
  }

  private static String cliType(SearchAttributeKey<?> key) {
    return switch (key.getValueType()) {
      case INDEXED_VALUE_TYPE_KEYWORD -> "Keyword";
      case INDEXED_VALUE_TYPE_INT -> "Int";
      default -> throw new IllegalStateException("no CLI type for " + key.getValueType());
    };
  }
}
