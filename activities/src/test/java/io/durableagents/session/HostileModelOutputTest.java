package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Malformed and hostile model output, generated from fixed seeds (printed, so a failure can be
 * replayed alone): a scripted model file is refused when it is loaded, naming the turn and the
 * field; an answer a provider returns at run time fails the run with {@code
 * model_response_invalid}, once, never retried, and the session answers its next message.
 */
class HostileModelOutputTest extends SessionKitTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int SCRIPT_SEEDS = 300;
  private static final int ANSWER_SEEDS = 40;

  // ---- scripted model files ---------------------------------------------------------------

  /** A valid turn: text, up to three calls, maybe usage and a delay. */
  private static ObjectNode validTurn(Random random) {
    ObjectNode turn = NODES.objectNode();
    if (random.nextBoolean()) {
      turn.put("text", "text " + random.nextInt(100));
    }
    int calls = random.nextInt(4);
    if (calls > 0 || random.nextBoolean()) {
      ArrayNode toolCalls = turn.putArray("toolCalls");
      for (int i = 0; i < calls; i++) {
        ObjectNode call = toolCalls.addObject().put("name", "echo");
        if (random.nextBoolean()) {
          call.putObject("arguments").put("text", "t" + i);
        }
      }
    }
    if (random.nextBoolean()) {
      turn.putObject("usage")
          .put("inputTokens", random.nextInt(1000))
          .put("outputTokens", random.nextInt(100));
    }
    if (random.nextInt(4) == 0) {
      turn.put("delayMs", 0);
    }
    return turn;
  }

  /** A value that is none of the JSON types in {@code notOf} ("string", "number", ...). */
  private static JsonNode wrongValue(Random random, String... notOf) {
    List<JsonNode> values = new ArrayList<>();
    List<String> excluded = List.of(notOf);
    if (!excluded.contains("string")) {
      values.add(NODES.textNode(random.nextBoolean() ? "" : "x" + random.nextInt(9)));
    }
    if (!excluded.contains("number")) {
      values.add(NODES.numberNode(-1 - random.nextInt(1000)));
      values.add(NODES.numberNode(random.nextDouble() + 0.25));
    }
    if (!excluded.contains("object")) {
      values.add(NODES.objectNode().put("k", 1));
    }
    if (!excluded.contains("array")) {
      values.add(NODES.arrayNode().add(1));
    }
    values.add(NODES.booleanNode(random.nextBoolean()));
    return values.get(random.nextInt(values.size()));
  }

  /** A count that is not a non-negative long. */
  private static JsonNode badCount(Random random) {
    return switch (random.nextInt(5)) {
      case 0 -> NODES.numberNode(-1 - random.nextInt(1_000_000));
      case 1 -> NODES.textNode(String.valueOf(random.nextInt(100)));
      case 2 -> NODES.numberNode(random.nextDouble() + 0.5);
      case 3 ->
          NODES.numberNode(
              BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.valueOf(1 + random.nextInt(99))));
      default -> NODES.booleanNode(true);
    };
  }

  private static ObjectNode someCall(ObjectNode turn, Random random) {
    ArrayNode calls =
        turn.has("toolCalls") ? (ArrayNode) turn.get("toolCalls") : turn.putArray("toolCalls");
    if (calls.isEmpty() || random.nextBoolean()) {
      calls.addObject().put("name", "echo");
    }
    return (ObjectNode) calls.get(random.nextInt(calls.size()));
  }

  // Identity is meant: the position of this very node, which may equal another call of the turn.
  @SuppressWarnings("ReferenceEquality")
  private static int indexOf(ObjectNode turn, ObjectNode call) {
    ArrayNode calls = (ArrayNode) turn.get("toolCalls");
    for (int i = 0; i < calls.size(); i++) {
      if (calls.get(i) == call) {
        return i;
      }
    }
    throw new IllegalStateException("not a call of the turn");
  }

  /** Breaks {@code turn} in one way; returns the path, below the turn, that the error must name. */
  private static String breakTurn(ObjectNode turn, Random random) {
    switch (random.nextInt(12)) {
      case 0 -> {
        turn.set("toolCalls", wrongValue(random, "array"));
        return ".toolCalls";
      }
      case 1 -> {
        ObjectNode call = someCall(turn, random);
        int index = indexOf(turn, call);
        ((ArrayNode) turn.get("toolCalls")).set(index, wrongValue(random, "object"));
        return ".toolCalls[" + index + "]";
      }
      case 2 -> {
        ObjectNode call = someCall(turn, random);
        switch (random.nextInt(3)) {
          case 0 -> call.remove("name");
          case 1 -> call.put("name", " ".repeat(random.nextInt(3)));
          default -> call.set("name", wrongValue(random, "string"));
        }
        return ".toolCalls[" + indexOf(turn, call) + "].name";
      }
      case 3 -> {
        ObjectNode call = someCall(turn, random);
        call.set("arguments", wrongValue(random, "object"));
        return ".toolCalls[" + indexOf(turn, call) + "].arguments";
      }
      case 4 -> {
        ObjectNode call = someCall(turn, random);
        call.put("id", "call_" + random.nextInt(9));
        return ".toolCalls[" + indexOf(turn, call) + "]: unknown field \"id\"";
      }
      case 5 -> {
        turn.set("usage", wrongValue(random, "object"));
        return ".usage";
      }
      case 6 -> {
        String field = random.nextBoolean() ? "inputTokens" : "outputTokens";
        turn.putObject("usage").set(field, badCount(random));
        return ".usage." + field;
      }
      case 7 -> {
        turn.putObject("usage")
            .put("inputTokens", Long.MAX_VALUE - random.nextInt(10))
            .put("outputTokens", 10 + random.nextInt(10));
        return ".usage: inputTokens + outputTokens overflow";
      }
      case 8 -> {
        turn.set("delayMs", badCount(random));
        return ".delayMs";
      }
      case 9 -> {
        turn.set("text", wrongValue(random, "string"));
        return ".text";
      }
      case 10 -> {
        turn.set("error", wrongValue(random, "string"));
        return ".error";
      }
      default -> {
        String field = random.nextBoolean() ? "toolcalls" : "x" + random.nextInt(1000);
        turn.put(field, 1);
        return ": unknown field \"" + field + "\"";
      }
    }
  }

  @Test
  void everyMalformedScript_isRefusedAtLoad_namingItsTurnAndField() throws Exception {
    for (long seed = 1; seed <= SCRIPT_SEEDS; seed++) {
      Random random = new Random(seed);
      ArrayNode turns = NODES.arrayNode();
      int count = 1 + random.nextInt(5);
      for (int i = 0; i < count; i++) {
        turns.add(validTurn(random));
      }
      int broken = random.nextInt(count);
      String at = "turns[" + broken + "]" + breakTurn((ObjectNode) turns.get(broken), random);
      String script = JSON.writeValueAsString(NODES.objectNode().set("turns", turns));
      System.out.println("hostile script seed " + seed + ": " + at);

      assertThatThrownBy(() -> ScriptedModelProvider.fromJson(script))
          .as("seed %d: %s", seed, script)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("Model script " + at);
    }
  }

  @Test
  void theValidTurnsTheGeneratorBuildsOn_load() throws Exception {
    for (long seed = 1; seed <= SCRIPT_SEEDS; seed++) {
      Random random = new Random(seed);
      ArrayNode turns = NODES.arrayNode();
      for (int i = 0; i < 3; i++) {
        turns.add(validTurn(random));
      }
      String script = JSON.writeValueAsString(NODES.objectNode().set("turns", turns));
      assertThat(ScriptedModelProvider.fromJson(script).turnCount())
          .as("seed %d", seed)
          .isEqualTo(3);
    }
  }

  // ---- answers of a provider, at run time --------------------------------------------------

  /** A valid answer, then one to three ways of breaking it. */
  private static ModelResponse hostileAnswer(Random random, int step) {
    List<ToolCall> calls = new ArrayList<>();
    int valid = random.nextInt(3);
    for (int i = 0; i < valid; i++) {
      calls.add(new ToolCall("c" + i, "echo", NODES.objectNode().put("text", "t")));
    }
    Usage usage = new Usage(random.nextInt(100), random.nextInt(100));
    // Each breaker makes the answer invalid on its own, whatever the others do.
    List<UnaryOperator<Usage>> breakers =
        List.of(
            u -> insert(calls, random, null, u),
            u ->
                insert(
                    calls, random, new ToolCall("n" + calls.size(), null, NODES.objectNode()), u),
            u ->
                insert(
                    calls,
                    random,
                    new ToolCall(
                        "b" + calls.size(), " ".repeat(random.nextInt(3)), NODES.objectNode()),
                    u),
            u ->
                insert(
                    calls,
                    random,
                    new ToolCall("a" + calls.size(), "echo", wrongArguments(random)),
                    u),
            u -> {
              calls.add(new ToolCall("same", "echo", NODES.objectNode()));
              calls.add(new ToolCall("same", "echo", NODES.objectNode()));
              return u;
            },
            u -> {
              // A call without an id takes call_<step>_<index>: here another call's id.
              calls.add(0, new ToolCall(null, "echo", NODES.objectNode()));
              calls.add(new ToolCall("call_" + step + "_0", "echo", NODES.objectNode()));
              return u;
            },
            u -> new Usage(-1 - random.nextInt(1_000_000), u.outputTokens()),
            u -> new Usage(u.inputTokens(), Long.MIN_VALUE + random.nextInt(10)),
            u -> new Usage(Long.MAX_VALUE - random.nextInt(5), 10 + random.nextInt(10)));
    int breaks = 1 + random.nextInt(3);
    for (int i = 0; i < breaks; i++) {
      usage = breakers.get(random.nextInt(breakers.size())).apply(usage);
    }
    return new ModelResponse("hostile", calls, "tool-calls", usage);
  }

  private static Usage insert(List<ToolCall> calls, Random random, ToolCall call, Usage usage) {
    calls.add(random.nextInt(calls.size() + 1), call);
    return usage;
  }

  private static JsonNode wrongArguments(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> NODES.arrayNode().add(1);
      case 1 -> NODES.numberNode(random.nextInt());
      case 2 -> NODES.booleanNode(random.nextBoolean());
      default -> NODES.numberNode(random.nextDouble());
    };
  }

  /**
   * Answers a message "hostile SEED" with that seed's hostile answer (or null for every seventh
   * seed: no answer at all), anything else with "fine"; counts the calls per session.
   */
  private static final class HostileProvider implements ModelProvider {
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    @Override
    public ModelResponse generate(ModelRequest request, ModelStream stream) {
      calls.computeIfAbsent(request.sessionId(), s -> new AtomicInteger()).incrementAndGet();
      Message last = request.messages().get(request.messages().size() - 1);
      if (last.text() != null && last.text().startsWith("hostile ")) {
        long seed = Long.parseLong(last.text().substring("hostile ".length()));
        if (seed % 7 == 0) {
          return null;
        }
        return hostileAnswer(new Random(seed), request.step());
      }
      return new ModelResponse("fine", List.of(), "stop", new Usage(3, 1));
    }
  }

  @Test
  void everyHostileAnswer_failsItsRunOnceWithModelResponseInvalid_andTheSessionAnswersNext() {
    HostileProvider provider = new HostileProvider();
    kit = new SessionTestKit(dir, provider, 10);
    for (long seed = 1; seed <= ANSWER_SEEDS; seed++) {
      String session = "hostile-" + seed;
      System.out.println("hostile answer seed " + seed);

      long started = System.nanoTime();
      RunResult failed = kit.send(session, "hostile " + seed);

      System.out.println(
          "  "
              + failed.status()
              + ": "
              + (failed.error() == null ? null : failed.error().message()));
      assertThat(failed.status()).as("seed %d", seed).isEqualTo(RunStatus.FAILED);
      assertThat(failed.error().code())
          .as("seed %d", seed)
          .isEqualTo(FailureTypes.MODEL_RESPONSE_INVALID);
      assertThat(failed.error().message())
          .as("seed %d", seed)
          .startsWith("The model's answer for turn 1 is invalid: ");
      assertThat(provider.calls.get(session).get()).as("seed %d: not retried", seed).isEqualTo(1);
      assertThat(failed.toolCalls()).as("seed %d: nothing ran", seed).isEmpty();

      RunResult next = kit.send(session, "and now?");
      assertThat(next.status()).as("seed %d", seed).isEqualTo(RunStatus.FINISHED);
      assertThat(next.text()).isEqualTo("fine");
      SessionStatus status = kit.session(session).status();
      assertThat(status.usage()).as("seed %d", seed).isEqualTo(new Usage(3, 1));
      assertThat(System.nanoTime() - started)
          .as("seed %d: settled in seconds", seed)
          .isLessThan(10_000_000_000L);
    }
  }
}
