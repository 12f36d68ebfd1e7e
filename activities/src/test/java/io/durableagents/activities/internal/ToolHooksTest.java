package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.AfterCallDecision;
import io.durableagents.tools.BeforeCallDecision;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tools.ToolHookCall;
import io.durableagents.workflow.internal.activity.HookRecord;
import io.durableagents.workflow.internal.activity.ToolActivities;
import io.durableagents.workflow.internal.activity.ToolOutcome;
import io.durableagents.workflow.internal.activity.ToolRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.testing.TestActivityEnvironment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Tool hooks run inside the tool activity, after the model's arguments passed the schema: they deny
 * with a reason the model sees, rewrite arguments (checked again), replace results, and a hook that
 * throws or hangs gives the call a named error result instead of wedging it.
 */
class ToolHooksTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AtomicInteger handlerRuns = new AtomicInteger();
  private final List<JsonNode> handlerArguments = new CopyOnWriteArrayList<>();
  private final List<String> calls = new CopyOnWriteArrayList<>();
  private TestActivityEnvironment environment;

  @AfterEach
  void tearDown() {
    if (environment != null) {
      environment.close();
    }
  }

  @Test
  void deny_givesToolDeniedWithTheReason_andTheHandlerNeverRuns() {
    ToolActivities tools =
        worker(List.of(), Duration.ofSeconds(10), denying("Guard", "Not today."));

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"refund\"}"));

    assertThat(outcome.error()).isTrue();
    assertThat(outcome.result())
        .isEqualTo(
            json("{\"error\": \"tool_denied\", \"hook\": \"Guard\", \"message\": \"Not today.\"}"));
    assertThat(outcome.hooks())
        .containsExactly(new HookRecord("Guard", HookRecord.Action.DENIED, "Not today."));
    assertThat(handlerRuns).hasValue(0);
  }

  @Test
  void rewrite_runsTheHandlerWithTheRewrittenArguments_andRecordsIt() {
    ToolActivities tools =
        worker(List.of(), Duration.ofSeconds(10), rewriting("Lowercase", "{\"q\": \"paris\"}"));

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"PARIS\"}"));

    assertThat(outcome.error()).isFalse();
    assertThat(handlerArguments).containsExactly(json("{\"q\": \"paris\"}"));
    assertThat(outcome.result().get("echo")).isEqualTo(json("{\"q\": \"paris\"}"));
    assertThat(outcome.hooks())
        .containsExactly(new HookRecord("Lowercase", HookRecord.Action.REWROTE_ARGUMENTS, null));
    assertThat(outcome.hookNote()).isEqualTo("hook 'Lowercase' rewrote arguments");
  }

  @Test
  void rewriteThatBreaksTheSchema_givesInvalidArgumentsNamingTheHook_withoutRunningTheHandler() {
    ToolActivities tools =
        worker(List.of(), Duration.ofSeconds(10), rewriting("Breaker", "{\"q\": 42}"));

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));

    assertThat(outcome.error()).isTrue();
    assertThat(outcome.result().get("error").asText()).isEqualTo("invalid_arguments");
    assertThat(outcome.result().get("hook").asText()).isEqualTo("Breaker");
    assertThat(outcome.result().get("message").asText())
        .startsWith("Hook 'Breaker' rewrote the arguments: Arguments of 'lookup'");
    assertThat(handlerRuns).hasValue(0);
  }

  @Test
  void replace_redactsTheResultBeforeItIsRecorded() {
    ToolActivities tools = worker(List.of(), Duration.ofSeconds(10), new CardRedactor());

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));

    assertThat(outcome.error()).isFalse();
    assertThat(outcome.result().get("card").asText()).isEqualTo("[redacted]");
    assertThat(outcome.result().toString()).doesNotContain("4111");
    assertThat(outcome.hooks())
        .containsExactly(new HookRecord("CardRedactor", HookRecord.Action.REPLACED_RESULT, null));
  }

  @Test
  void hookThatThrowsBeforeTheCall_givesHookFailedNamingIt() {
    ToolHook broken =
        named(
            "Broken",
            call -> {
              throw new IllegalStateException("policy service down");
            });
    ToolActivities tools = worker(List.of(), Duration.ofSeconds(10), broken);

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));

    assertThat(outcome.error()).isTrue();
    assertThat(outcome.result().get("error").asText()).isEqualTo("hook_failed");
    assertThat(outcome.result().get("hook").asText()).isEqualTo("Broken");
    assertThat(outcome.result().get("message").asText())
        .isEqualTo("Hook 'Broken' failed: policy service down");
    assertThat(outcome.hooks())
        .extracting(HookRecord::action)
        .containsExactly(HookRecord.Action.FAILED);
    assertThat(handlerRuns).hasValue(0);
  }

  @Test
  void hookThatThrowsAfterTheCall_withholdsTheResult() {
    ToolHook brokenRedactor =
        new ToolHook() {
          @Override
          public String name() {
            return "BrokenRedactor";
          }

          @Override
          public AfterCallDecision afterCall(ToolHookCall call, JsonNode result) {
            throw new IllegalStateException("pattern failed to compile");
          }
        };
    ToolActivities tools = worker(List.of(), Duration.ofSeconds(10), brokenRedactor);

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));

    assertThat(handlerRuns).hasValue(1);
    assertThat(outcome.error()).isTrue();
    assertThat(outcome.result().get("error").asText()).isEqualTo("hook_failed");
    assertThat(outcome.result().toString()).doesNotContain("4111");
  }

  @Test
  void hookThatHangs_givesHookTimeoutWithinItsTimeout() {
    ToolHook hanging =
        named(
            "Hanging",
            call -> {
              Thread.sleep(60_000);
              return BeforeCallDecision.allow();
            });
    ToolActivities tools = worker(List.of(), Duration.ofMillis(300), hanging);

    long started = System.nanoTime();
    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));
    Duration took = Duration.ofNanos(System.nanoTime() - started);

    assertThat(outcome.error()).isTrue();
    assertThat(outcome.result().get("error").asText()).isEqualTo("hook_timeout");
    assertThat(outcome.result().get("hook").asText()).isEqualTo("Hanging");
    assertThat(outcome.hooks())
        .extracting(HookRecord::action)
        .containsExactly(HookRecord.Action.TIMED_OUT);
    assertThat(took).isLessThan(Duration.ofSeconds(5));
    assertThat(handlerRuns).hasValue(0);
  }

  @Test
  void pluginHooksRunBeforeTheAgents_rewritesChain_andTheFirstDenialWins() {
    ToolHook globalRewrite =
        recording("GlobalRewrite", BeforeCallDecision.rewrite(json("{\"q\": \"a\"}")));
    ToolHook agentDeny = recording("AgentDeny", BeforeCallDecision.deny("no"));
    ToolHook agentLater = recording("AgentLater", BeforeCallDecision.allow());
    ToolActivities tools =
        worker(List.of(globalRewrite), Duration.ofSeconds(10), agentDeny, agentLater);

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"model\"}"));

    assertThat(calls)
        .containsExactly("GlobalRewrite saw {\"q\":\"model\"}", "AgentDeny saw {\"q\":\"a\"}");
    assertThat(outcome.result().get("hook").asText()).isEqualTo("AgentDeny");
    assertThat(outcome.hooks())
        .extracting(HookRecord::hook, HookRecord::action)
        .containsExactly(
            tuple("GlobalRewrite", HookRecord.Action.REWROTE_ARGUMENTS),
            tuple("AgentDeny", HookRecord.Action.DENIED));
  }

  @Test
  void hooksThatChangeNothing_leaveTheOutcomeAsWithoutHooks() throws Exception {
    ToolHook watcher = recording("Watcher", BeforeCallDecision.allow());
    ToolActivities tools = worker(List.of(watcher), Duration.ofSeconds(10));

    ToolOutcome outcome = tools.executeTool(request("{\"q\": \"paris\"}"));

    assertThat(calls).containsExactly("Watcher saw {\"q\":\"paris\"}");
    assertThat(outcome.hooks()).isEmpty();
    assertThat(outcome.hookNote()).isNull();
    assertThat(JSON.writeValueAsString(outcome)).doesNotContain("hooks");
  }

  private ToolActivities worker(List<ToolHook> global, Duration timeout, ToolHook... agentHooks) {
    Tool lookup =
        Tool.newBuilder("lookup")
            .setInputSchema(
                "{\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}},"
                    + " \"required\": [\"q\"]}")
            .setHandler(
                (arguments, context) -> {
                  handlerRuns.incrementAndGet();
                  handlerArguments.add(arguments);
                  ObjectNode result = JsonNodeFactory.instance.objectNode();
                  result.set("echo", arguments);
                  result.put("card", "4111111111111111");
                  return result;
                })
            .build();
    Agent.Builder agent = Agent.newBuilder("worker").setTools(lookup);
    for (ToolHook hook : agentHooks) {
      agent.addToolHook(hook);
    }
    AgentRegistry registry =
        new AgentRegistry(
            List.of(agent.build()), "worker", ScriptedModelProvider.fromJson("{\"turns\": []}"));
    environment = TestActivityEnvironment.newInstance();
    environment.registerActivitiesImplementations(
        new ToolActivitiesImpl(new AgentDefinitions(registry, null), 512 * 1024)
            .withHooks(new ToolHooks(global, timeout)));
    return environment.newActivityStub(
        ToolActivities.class,
        ActivityOptions.newBuilder()
            .setStartToCloseTimeout(Duration.ofSeconds(30))
            .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
            .build());
  }

  private ToolHook recording(String name, BeforeCallDecision decision) {
    return named(
        name,
        call -> {
          calls.add(name + " saw " + call.arguments());
          return decision;
        });
  }

  private static ToolHook denying(String name, String reason) {
    return named(name, call -> BeforeCallDecision.deny(reason));
  }

  private static ToolHook rewriting(String name, String arguments) {
    return named(name, call -> BeforeCallDecision.rewrite(json(arguments)));
  }

  /** Redacts the card number of a result. */
  private static final class CardRedactor implements ToolHook {
    @Override
    public AfterCallDecision afterCall(ToolHookCall call, JsonNode result) {
      if (!result.has("card")) {
        return AfterCallDecision.keep();
      }
      ObjectNode redacted = result.deepCopy();
      redacted.put("card", "[redacted]");
      return AfterCallDecision.replace(redacted);
    }
  }

  private interface Before {
    BeforeCallDecision decide(ToolHookCall call) throws Exception;
  }

  private static ToolHook named(String name, Before before) {
    return new ToolHook() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public BeforeCallDecision beforeCall(ToolHookCall call) throws Exception {
        return before.decide(call);
      }
    };
  }

  private static ToolRequest request(String arguments) {
    return new ToolRequest("s", "worker", 1, "call_1", "lookup", json(arguments));
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
