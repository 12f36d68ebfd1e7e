package io.durableagents.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.client.HistoryEntry;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.session.RunStatus;
import io.durableagents.tools.AfterCallDecision;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.BeforeCallDecision;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tools.ToolHookCall;
import io.durableagents.workflow.RunResult;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Tool hooks in a whole run: the model's next turn sees a denial's reason and a redacted result,
 * the run goes on, the history's tool messages say which hook changed what, and a gated call that a
 * resumed run executes after its approval goes through the hooks once.
 */
class ToolHooksWorkflowTest {
  private static final String OBJECT_SCHEMA =
      "{\"type\": \"object\", \"properties\": {\"amount\": {\"type\": \"integer\"},"
          + " \"q\": {\"type\": \"string\"}}}";

  private final AtomicInteger refunds = new AtomicInteger();
  private final AtomicInteger lookups = new AtomicInteger();
  private final List<JsonNode> transfers = new CopyOnWriteArrayList<>();
  private final List<List<Message>> modelSaw = new CopyOnWriteArrayList<>();

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void denialAndRedaction_reachTheModel_theRunGoesOn_andTheHistoryNamesTheHooks() {
    String script =
        """
        {"turns": [
          {"toolCalls": [
            {"name": "refund", "arguments": {"amount": 500}},
            {"name": "lookup", "arguments": {"q": "order 7"}}]},
          {"text": "I cannot refund, but your order is on its way."}
        ]}
        """;
    NoRefunds noRefunds = new NoRefunds();
    Agent agent =
        Agent.newBuilder("support")
            .setModel("scripted")
            .setTools(refundTool(), lookupTool())
            .addToolHook(new CardRedactor())
            .build();
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(agent)
            .setModelProvider(recording(script))
            .addPluginOptions(options -> options.addToolHook(noRefunds))
            .start()) {
      RunResult result = env.client().send("hooks-1", "Refund order 7 and tell me where it is.");

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(result.text()).isEqualTo("I cannot refund, but your order is on its way.");
      assertThat(refunds).hasValue(0);
      assertThat(lookups).hasValue(1);

      List<Message> secondTurn = modelSaw.get(1);
      Message denied = toolMessage(secondTurn, "refund");
      assertThat(denied.result().get("error").asText()).isEqualTo("tool_denied");
      assertThat(denied.result().get("hook").asText()).isEqualTo("NoRefunds");
      assertThat(denied.result().get("message").asText())
          .isEqualTo("Refunds need a human: offer to open a ticket.");
      Message looked = toolMessage(secondTurn, "lookup");
      assertThat(looked.result().get("card").asText()).isEqualTo("[redacted]");
      assertThat(looked.result().toString()).doesNotContain("4111");

      List<HistoryEntry> history = env.client().history("hooks-1", 20);
      List<Message> recorded = history.get(0).checkpoint().messages();
      assertThat(toolMessage(recorded, "refund").text())
          .isEqualTo("hook 'NoRefunds' denied: Refunds need a human: offer to open a ticket.");
      assertThat(toolMessage(recorded, "lookup").text())
          .isEqualTo("hook 'CardRedactor' replaced result");
      assertThat(toolMessage(recorded, "lookup").result().toString()).doesNotContain("4111");

      // The activity's recorded result says what the hooks did; a replay asks no hook again.
      assertThat(noRefunds.calls).hasValue(2);
      WorkflowExecutionHistory temporalHistory = env.workflowClient().fetchHistory("hooks-1");
      assertThat(activityResults(temporalHistory))
          .anySatisfy(
              payload ->
                  assertThat(payload)
                      .contains("\"hooks\":[{\"hook\":\"NoRefunds\",\"action\":\"denied\""))
          .anySatisfy(
              payload ->
                  assertThat(payload)
                      .contains(
                          "\"hooks\":[{\"hook\":\"CardRedactor\",\"action\":\"replaced_result\"}]"));
      assertThat(SessionReplayer.newInstance().replay(temporalHistory).replayed()).isTrue();
      assertThat(noRefunds.calls).hasValue(2);
    }
  }

  @Test
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void aGatedCallExecutedAfterItsApproval_goesThroughTheHooksOnce() {
    String script =
        """
        {"turns": [
          {"toolCalls": [{"name": "transfer", "arguments": {"amount": 5000}}]},
          {"text": "Transferred."}
        ]}
        """;
    AtomicInteger hookRuns = new AtomicInteger();
    ToolHook cap =
        new ToolHook() {
          @Override
          public String name() {
            return "Cap";
          }

          @Override
          public BeforeCallDecision beforeCall(ToolHookCall call) {
            hookRuns.incrementAndGet();
            ObjectNode capped = call.arguments().deepCopy();
            capped.put("amount", Math.min(1000, call.arguments().path("amount").asInt()));
            return BeforeCallDecision.rewrite(capped);
          }
        };
    Agent agent =
        Agent.newBuilder("bank")
            .setModel("scripted")
            .setTools(transferTool())
            .addToolHook(cap)
            .build();
    try (AgentTestEnvironment env =
        AgentTestEnvironment.newBuilder()
            .addAgent(agent)
            .setModelProvider(recording(script))
            .start()) {
      RunResult paused = env.client().send("hooks-2", "Send 5000.");
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      // The hooks run when the call executes, not when it asks for approval.
      assertThat(hookRuns).hasValue(0);

      env.client().approve("hooks-2", paused.approval().approvalId());
      RunResult finished = env.client().awaitRun("hooks-2");

      assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(hookRuns).hasValue(1);
      assertThat(transfers)
          .singleElement()
          .satisfies(a -> assertThat(a.get("amount").asInt()).isEqualTo(1000));
      Message transferred =
          toolMessage(
              env.client().history("hooks-2", 20).get(0).checkpoint().messages(), "transfer");
      assertThat(transferred.text()).isEqualTo("hook 'Cap' rewrote arguments");
      assertThat(transferred.result().get("sent").asInt()).isEqualTo(1000);
    }
  }

  private ModelProvider recording(String script) {
    ScriptedModelProvider scripted = ScriptedModelProvider.fromJson(script);
    return (request, stream) -> {
      modelSaw.add(List.copyOf(request.messages()));
      return scripted.generate(request, stream);
    };
  }

  private static List<String> activityResults(WorkflowExecutionHistory history) {
    return history.getEvents().stream()
        .filter(HistoryEvent::hasActivityTaskCompletedEventAttributes)
        .map(
            event ->
                event
                    .getActivityTaskCompletedEventAttributes()
                    .getResult()
                    .getPayloads(0)
                    .getData()
                    .toStringUtf8())
        .toList();
  }

  private static Message toolMessage(List<Message> messages, String tool) {
    return messages.stream()
        .filter(message -> message.role() == Role.TOOL && tool.equals(message.toolName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no result of " + tool + " in " + messages));
  }

  private Tool refundTool() {
    return Tool.newBuilder("refund")
        .setInputSchema(OBJECT_SCHEMA)
        .setHandler(
            (arguments, context) -> {
              refunds.incrementAndGet();
              return Map.of("refunded", arguments.get("amount").asInt());
            })
        .build();
  }

  private Tool lookupTool() {
    return Tool.newBuilder("lookup")
        .setInputSchema(OBJECT_SCHEMA)
        .setHandler(
            (arguments, context) -> {
              lookups.incrementAndGet();
              return Map.of("status", "shipped", "card", "4111111111111111");
            })
        .build();
  }

  private Tool transferTool() {
    return Tool.newBuilder("transfer")
        .setInputSchema(OBJECT_SCHEMA)
        .setApprovalPolicy(ApprovalPolicy.ALWAYS)
        .setHandler(
            (arguments, context) -> {
              transfers.add(arguments);
              return Map.of("sent", arguments.get("amount").asInt());
            })
        .build();
  }

  /** The plugin's hook: refunds are for humans. */
  private static final class NoRefunds implements ToolHook {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public BeforeCallDecision beforeCall(ToolHookCall call) {
      calls.incrementAndGet();
      return call.toolName().equals("refund")
          ? BeforeCallDecision.deny("Refunds need a human: offer to open a ticket.")
          : BeforeCallDecision.allow();
    }
  }

  /** The agent's hook: no card number reaches the model or the history. */
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
}
