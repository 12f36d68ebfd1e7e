package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Where a sub-agent session comes from: the parent session and the tool call it answers, the task
 * the parent's model gave it (its one run's input), the agents of the sessions above it, root first
 * ({@code agents}: its depth is their number, and an agent among them is a cycle), and the tokens
 * the parent's run had left ({@code maxTokens}, 0: no limit), which its run may not exceed, and the
 * definition the parent's run recorded for the sub-agent ({@code agentFingerprint}), which its run
 * uses: a deploy that changed the sub-agent is drift of the parent's run.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SubAgentOrigin(
    @JsonProperty("parentSessionId") String parentSessionId,
    @JsonProperty("toolCallId") String toolCallId,
    @JsonProperty("task") String task,
    @JsonProperty("agents") List<String> agents,
    @JsonProperty("maxTokens") long maxTokens,
    @JsonProperty("agentFingerprint") String agentFingerprint) {

  public SubAgentOrigin {
    agents = agents == null ? List.of() : List.copyOf(agents);
  }
}
