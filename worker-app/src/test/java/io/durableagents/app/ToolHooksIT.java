package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.session.RunStatus;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.AfterCallDecision;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.BeforeCallDecision;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tools.ToolHookCall;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tool hooks on the real dev server: a plugin hook denies a call and an agent hook redacts a result
 * while the run goes on; a gated call paused on one worker and approved after that worker stopped
 * is executed by the next worker, through its hooks, once; {@code agents history} names the hooks.
 */
class ToolHooksIT {
  private static final String TASK_QUEUE = "tool-hooks";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(90);
  private static final String SCHEMA =
      "{\"type\": \"object\", \"properties\": {\"amount\": {\"type\": \"integer\"}},"
          + " \"required\": [\"amount\"]}";
  private static final String SUPPORT_SCRIPT =
      """
      {"turns": [
        {"toolCalls": [
          {"name": "refund", "arguments": {"amount": 500}},
          {"name": "order", "arguments": {"amount": 7}}]},
        {"text": "No refund, but your order shipped."}
      ]}
      """;
  private static final String BANK_SCRIPT =
      """
      {"turns": [
        {"toolCalls": [{"name": "transfer", "arguments": {"amount": 5000}}]},
        {"text": "Transferred."}
      ]}
      """;

  @TempDir Path dir;

  @Test
  void denialAndRedaction_andAnApprovedCallResumedByTheNextWorker_goThroughTheHooksOnce()
      throws Exception {
    String projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    try (TemporalDevServer server = RealTemporal.start(dir);
        AgentStore store = AgentStores.open(projection);
        ProjectionReader reader = ProjectionReader.open(projection);
        AgentsProcesses processes = new AgentsProcesses(dir)) {
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      WorkflowClient client = WorkflowClient.newInstance(service);
      AgentClient agents =
          AgentClient.newInstance(
              client,
              AgentClientOptions.newBuilder()
                  .setTaskQueue(TASK_QUEUE)
                  .setProjection(reader)
                  .build());

      HookedWorker first = new HookedWorker(client, store);
      RunResult support =
          agents.send(
              "support-1",
              "Refund order 7 and tell me where it is.",
              SendOptions.newBuilder().setAgent("support").build());
      assertThat(support.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(support.text()).isEqualTo("No refund, but your order shipped.");
      assertThat(first.refunds).hasValue(0);
      assertThat(call(support, "refund").result())
          .hasToString(
              "{\"error\":\"tool_denied\",\"hook\":\"NoRefunds\","
                  + "\"message\":\"Refunds need a human: offer a ticket.\"}");
      JsonNode order = call(support, "order").result();
      assertThat(order.get("card").asText()).isEqualTo("[redacted]");
      assertThat(order.get("shipped").asBoolean()).isTrue();

      RunResult paused =
          agents.send("bank-1", "Send 5000.", SendOptions.newBuilder().setAgent("bank").build());
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      first.stop();

      // The call runs on the next worker, after the approval: its hooks, once.
      HookedWorker second = new HookedWorker(client, store);
      try {
        agents.approve("bank-1", paused.approval().approvalId());
        RunResult finished = agents.awaitRun("bank-1");
        assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
        assertThat(call(finished, "transfer").result()).hasToString("{\"sent\":1000}");
        assertThat(first.capRuns).hasValue(0);
        assertThat(second.capRuns).hasValue(1);
        assertThat(second.transfers)
            .singleElement()
            .satisfies(a -> assertThat(a.get("amount").asInt()).isEqualTo(1000));
      } finally {
        second.stop();
      }

      AgentsProcesses.Result supportHistory =
          processes.run(COMMAND_TIMEOUT, "history", "support-1", "--projection", projection);
      assertThat(supportHistory.exitCode()).as(supportHistory.err()).isZero();
      assertThat(supportHistory.out())
          .contains(
              "tool refund (call call_0_0): hook 'NoRefunds' denied: Refunds need a human: offer a"
                  + " ticket.")
          .contains("tool order (call call_0_1): hook 'CardRedactor' replaced result")
          .doesNotContain("4111");
      AgentsProcesses.Result bankHistory =
          processes.run(COMMAND_TIMEOUT, "history", "bank-1", "--projection", projection);
      assertThat(bankHistory.exitCode()).as(bankHistory.err()).isZero();
      assertThat(bankHistory.out())
          .contains("tool transfer (call call_0_0): hook 'Cap' rewrote arguments");
    }
  }

  private static ToolCallRecord call(RunResult result, String tool) {
    return result.toolCalls().stream()
        .filter(call -> call.name().equals(tool))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no call of " + tool + " in " + result));
  }

  /** A worker with its own plugin and hooks, counting what they and the tools do. */
  private static final class HookedWorker {
    final AtomicInteger refunds = new AtomicInteger();
    final AtomicInteger capRuns = new AtomicInteger();
    final List<JsonNode> transfers = new CopyOnWriteArrayList<>();
    private final WorkerFactory factory;

    HookedWorker(WorkflowClient client, AgentStore store) {
      Agent support =
          Agent.newBuilder("support")
              .setModel("scripted")
              .setModelProvider(ScriptedModelProvider.fromJson(SUPPORT_SCRIPT))
              .setTools(
                  tool(
                      "refund",
                      args -> {
                        refunds.incrementAndGet();
                        return Map.of("refunded", args.get("amount").asInt());
                      }),
                  tool("order", args -> Map.of("shipped", true, "card", "4111111111111111")))
              .addToolHook(new CardRedactor())
              .build();
      Agent bank =
          Agent.newBuilder("bank")
              .setModel("scripted")
              .setModelProvider(ScriptedModelProvider.fromJson(BANK_SCRIPT))
              .setTools(
                  tool(
                          "transfer",
                          args -> {
                            transfers.add(args);
                            return Map.of("sent", args.get("amount").asInt());
                          })
                      .toBuilder()
                      .setApprovalPolicy(ApprovalPolicy.ALWAYS)
                      .build())
              .addToolHook(new Cap(capRuns))
              .build();
      AgentsPlugin plugin =
          new AgentsPlugin(
              AgentsPluginOptions.newBuilder()
                  .addAgent(support)
                  .addAgent(bank)
                  .setStore(store)
                  .addToolHook(new NoRefunds())
                  .build());
      factory =
          WorkerFactory.newInstance(
              client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
      factory.newWorker(TASK_QUEUE);
      factory.start();
    }

    void stop() {
      factory.shutdownNow();
      factory.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  private interface Handler {
    Object handle(JsonNode arguments);
  }

  private static Tool tool(String name, Handler handler) {
    return Tool.newBuilder(name)
        .setInputSchema(SCHEMA)
        .setHandler((arguments, context) -> handler.handle(arguments))
        .build();
  }

  /** The plugin's hook: refunds are for humans. */
  private static final class NoRefunds implements ToolHook {
    @Override
    public BeforeCallDecision beforeCall(ToolHookCall call) {
      return call.toolName().equals("refund")
          ? BeforeCallDecision.deny("Refunds need a human: offer a ticket.")
          : BeforeCallDecision.allow();
    }
  }

  /** Support's hook: no card number reaches the model or the history. */
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

  /** The bank's hook: transfers over 1000 are capped. */
  private static final class Cap implements ToolHook {
    private final AtomicInteger runs;

    Cap(AtomicInteger runs) {
      this.runs = runs;
    }

    @Override
    public BeforeCallDecision beforeCall(ToolHookCall call) {
      runs.incrementAndGet();
      ObjectNode capped = call.arguments().deepCopy();
      capped.put("amount", Math.min(1000, call.arguments().get("amount").asInt()));
      return BeforeCallDecision.rewrite(capped);
    }
  }
}
