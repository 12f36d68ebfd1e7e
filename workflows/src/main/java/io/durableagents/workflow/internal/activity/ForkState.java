package io.durableagents.workflow.internal.activity;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import java.util.List;

/**
 * What a forked session starts from, once its transcript is in the store: counts and totals of the
 * entry (the budgets continue), the calls of the last turn that still have no result (they run
 * first, through the normal tool path), the hash of the transcript, and the business state the fork
 * starts with (the entry's, or the patch's). {@code searchAttributes} is as in {@link AgentSpec}: a
 * fork that settles without a run learns from it whether to upsert its search attributes. {@code
 * awaitsModel} is true when the entry's run was still going and its transcript ends with what the
 * model has not answered yet (a tool batch's results, a user message): the fork then continues the
 * run with a model turn. Absent in results of older workers: false. {@code runUsage}: the tokens
 * the entry's run has used (its {@code maxTokens} budget continues); {@code fingerprint} and {@code
 * runConfig}: the definition and configuration the entry's run recorded, which the fork's run
 * keeps. {@code newLife} (absent in results of older workers: false): the session id was deleted
 * with its history kept, and a new session starts under it; only {@code run} and {@code step}
 * count, the numbers of the kept history's newest entry, after which the new session's runs and
 * entries go on so that they never write over the kept ones.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ForkState(
    @JsonProperty("agent") String agent,
    @JsonProperty("run") int run,
    @JsonProperty("stepsUsedInRun") int stepsUsedInRun,
    @JsonProperty("step") int step,
    @JsonProperty("messageCount") int messageCount,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("status") RunStatus status,
    @JsonProperty("finishReason") String finishReason,
    @JsonProperty("lastText") String lastText,
    @JsonProperty("pendingCalls") List<ToolCall> pendingCalls,
    @JsonProperty("checks") List<CallCheck> checks,
    @JsonProperty("transcriptHash") String transcriptHash,
    @JsonProperty("businessState") JsonNode businessState,
    @JsonProperty("searchAttributes") boolean searchAttributes,
    @JsonProperty("awaitsModel") boolean awaitsModel,
    @JsonProperty("runUsage") Usage runUsage,
    @JsonProperty("fingerprint") String fingerprint,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("newLife") boolean newLife) {

  public ForkState {
    pendingCalls = pendingCalls == null ? List.of() : List.copyOf(pendingCalls);
    checks = checks == null ? List.of() : List.copyOf(checks);
    usage = usage == null ? Usage.ZERO : usage;
    runUsage = runUsage == null ? Usage.ZERO : runUsage;
  }

  /**
   * A new session under an id whose deleted session's history is kept: its runs and entries are
   * numbered on after {@code run} and {@code step}.
   */
  public static ForkState newLife(int run, int step) {
    return new ForkState(
        null, run, 0, step, 0, null, null, null, null, null, null, null, null, false, false, null,
        null, null, true);
  }
}
