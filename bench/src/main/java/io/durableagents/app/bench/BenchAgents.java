package io.durableagents.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import java.util.List;
import java.util.Map;

/**
 * The agents the bench runs, all on scripted zero-latency models:
 *
 * <ul>
 *   <li>{@code bench-step-1} / {@code bench-step-n}: N turns that each call the no-op tool, then an
 *       answer (the step figures, one session at a time / many at once);
 *   <li>{@code bench-step-1-local} / {@code bench-step-n-local}: the same, with the model turn and
 *       the no-op tool as local activities ({@link Execution#LOCAL_ACTIVITY});
 *   <li>{@code bench-long} / {@code bench-short}: turns that each carry about {@code contentChars}
 *       of new content (text + tool argument + tool result), then an answer (history, fork,
 *       replay);
 *   <li>{@code bench-approval}: one call of a gated tool, then an answer (approvals, memory).
 * </ul>
 */
final class BenchAgents {
  static final String STEP_1 = "bench-step-1";
  static final String STEP_N = "bench-step-n";
  static final String STEP_1_LOCAL = "bench-step-1-local";
  static final String STEP_N_LOCAL = "bench-step-n-local";
  static final String LONG = "bench-long";
  static final String SHORT = "bench-short";
  static final String APPROVAL = "bench-approval";
  static final String FINAL_TEXT = "done";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FILLER =
      "The quick brown fox jumps over the lazy dog while the agent keeps a durable record. ";

  /** High enough that no bench session ever stops on its step budget. */
  private static final int MAX_STEPS = 100_000;

  private BenchAgents() {}

  static List<Agent> create(BenchConfig config, ProbeClock clock) {
    int third = config.contentChars() / 3;
    Tool noop = noop(Execution.ACTIVITY);
    Tool localNoop = noop(Execution.LOCAL_ACTIVITY);
    Tool pad =
        Tool.newBuilder("pad")
            .setDescription("Answers with a result of a fixed size.")
            .setInputSchema(
                "{\"type\":\"object\",\"properties\":{\"data\":{\"type\":\"string\"}},\"required\":[\"data\"]}")
            .setHandler(
                (args, ctx) -> Map.of("data", filler("result of " + ctx.toolCallId(), third)))
            .build();
    Tool gated =
        Tool.newBuilder("gated")
            .setDescription("Does nothing, once a human approved it.")
            .setApprovalPolicy(ApprovalPolicy.ALWAYS)
            .setHandler(
                (args, ctx) -> {
                  clock.mark(ctx.sessionId());
                  return Map.of("ok", true);
                })
            .build();
    return List.of(
        agent(STEP_1, stepScript(config.stepsPerSession1()), noop),
        agent(STEP_N, stepScript(config.stepsPerSessionN()), noop),
        agent(
            STEP_1_LOCAL,
            stepScript(config.localStepsPerSession1()),
            localNoop,
            Execution.LOCAL_ACTIVITY),
        agent(
            STEP_N_LOCAL,
            stepScript(config.localStepsPerSessionN()),
            localNoop,
            Execution.LOCAL_ACTIVITY),
        agent(LONG, contentScript(config.historyTurns(), config.contentChars()), pad),
        agent(SHORT, contentScript(config.shortTurns(), config.contentChars()), pad),
        agent(APPROVAL, callsThenAnswer(1, turn -> call("gated", JSON.createObjectNode())), gated));
  }

  /**
   * Only {@link #STEP_N} and {@link #STEP_N_LOCAL}, of {@code steps} steps each: what the scale
   * bench's worker processes serve.
   */
  static List<Agent> steps(int steps) {
    return List.of(
        agent(STEP_N, stepScript(steps), noop(Execution.ACTIVITY)),
        agent(
            STEP_N_LOCAL,
            stepScript(steps),
            noop(Execution.LOCAL_ACTIVITY),
            Execution.LOCAL_ACTIVITY));
  }

  private static Tool noop(Execution execution) {
    return Tool.newBuilder("noop")
        .setDescription("Does nothing.")
        .setExecution(execution)
        .setHandler((args, ctx) -> Map.of("ok", true))
        .build();
  }

  private static Agent agent(String name, String script, Tool tool) {
    return agent(name, script, tool, Execution.ACTIVITY);
  }

  private static Agent agent(String name, String script, Tool tool, Execution modelExecution) {
    return Agent.newBuilder(name)
        .setModel("scripted")
        .setModelExecution(modelExecution)
        .setInstructions("Benchmark agent " + name + ".")
        .setModelProvider(ScriptedModelProvider.fromJson(script))
        .setMaxSteps(MAX_STEPS)
        .setTools(tool)
        .build();
  }

  /** {@code steps} turns calling the no-op tool, then the answer. */
  static String stepScript(int steps) {
    return callsThenAnswer(steps, turn -> call("noop", JSON.createObjectNode()));
  }

  /** {@code turns} turns of about {@code chars} new characters each, then the answer. */
  static String contentScript(int turns, int chars) {
    int third = chars / 3;
    return callsThenAnswer(
        turns,
        turn -> {
          ObjectNode entry =
              call("pad", JSON.createObjectNode().put("data", filler("argument " + turn, third)));
          entry.put("text", filler("turn " + turn, chars - 2 * third));
          return entry;
        });
  }

  private interface TurnFactory {
    ObjectNode turn(int index);
  }

  private static String callsThenAnswer(int turns, TurnFactory factory) {
    ObjectNode script = JSON.createObjectNode();
    ArrayNode array = script.putArray("turns");
    for (int i = 0; i < turns; i++) {
      ObjectNode turn = factory.turn(i);
      usage(turn);
      array.add(turn);
    }
    array.add(usage(JSON.createObjectNode().put("text", FINAL_TEXT)));
    return script.toString();
  }

  private static ObjectNode call(String tool, ObjectNode arguments) {
    ObjectNode turn = JSON.createObjectNode();
    ObjectNode call = turn.putArray("toolCalls").addObject();
    call.put("name", tool);
    call.set("arguments", arguments);
    return turn;
  }

  /** Fixed usage, so the scripted model does not estimate tokens over the whole transcript. */
  private static ObjectNode usage(ObjectNode turn) {
    turn.putObject("usage").put("inputTokens", 1).put("outputTokens", 1);
    return turn;
  }

  /** {@code head}, then filler text up to {@code length} characters. */
  static String filler(String head, int length) {
    StringBuilder out =
        new StringBuilder(Math.max(length, head.length() + 1)).append(head).append(": ");
    while (out.length() < length) {
      out.append(FILLER);
    }
    out.setLength(Math.max(length, head.length()));
    return out.toString();
  }
}
