package io.durableagents.model.openai;

import io.durableagents.agent.Agent;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.streaming.Delta;
import io.durableagents.testing.PluginTestEnvironment;
import io.durableagents.testing.SessionUpdates;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.WorkflowClient;
import io.temporal.testing.TestWorkflowEnvironment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A session on {@link TestWorkflowEnvironment} with the real plugin, activities and SQLite store,
 * whose model is the OpenAI provider talking to a {@link FakeChatCompletionsServer}; a delta
 * listener records what the worker streamed.
 */
final class OpenAiSessionTestKit implements AutoCloseable {
  static final String TASK_QUEUE = "agents-openai-test";

  final TestWorkflowEnvironment env;
  final CheckpointStore store;
  final WorkflowClient client;
  final List<Delta> deltas = new CopyOnWriteArrayList<>();

  /** When each delta arrived ({@link System#nanoTime()}), in the order of {@link #deltas}. */
  final List<Long> deltaArrivals = new CopyOnWriteArrayList<>();

  /** Invocations per tool call id: the tools' side effects. */
  final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();

  OpenAiSessionTestKit(Path dir, FakeChatCompletionsServer server) {
    store = CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + dir.resolve("projection.db")));
    OpenAiModelProvider model =
        OpenAiModelProvider.newBuilder()
            .setBaseUrl(server.baseUrl())
            .setApiKey("sk-test")
            .setModel("gpt-4o-mini")
            .build();
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent())
                .setModelProvider(model)
                .setStore(store)
                .addDeltaListener(
                    delta -> {
                      deltaArrivals.add(System.nanoTime());
                      deltas.add(delta);
                    })
                .build());
    env = PluginTestEnvironment.start(plugin, TASK_QUEUE);
    client = env.getWorkflowClient();
  }

  private Agent agent() {
    return Agent.newBuilder("tester")
        .setModel("gpt-4o-mini")
        .setInstructions("You add numbers.")
        .setMaxSteps(5)
        .setModelMaxAttempts(3)
        .setTools(
            Tool.newBuilder("add")
                .setDescription("Adds two integers.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
                        + "\"required\":[\"a\",\"b\"]}")
                .setHandler(
                    (args, ctx) -> {
                      effects
                          .computeIfAbsent(ctx.toolCallId(), id -> new AtomicInteger())
                          .incrementAndGet();
                      return Map.of("sum", args.get("a").asLong() + args.get("b").asLong());
                    })
                .build(),
            Tool.newBuilder("echo")
                .setDescription("Echoes its text.")
                .setInputSchema(
                    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}")
                .setHandler(
                    (args, ctx) -> {
                      effects
                          .computeIfAbsent(ctx.toolCallId(), id -> new AtomicInteger())
                          .incrementAndGet();
                      return Map.of("echo", args.get("text").asText());
                    })
                .build())
        .build();
  }

  /** What AgentClient.send does: update-with-start on the session's workflow. */
  RunResult send(String sessionId, String input) {
    RunResult result =
        SessionUpdates.sendWithStart(
            client, TASK_QUEUE, new SendRequest(input), new SessionStart(sessionId, null, null));
    while (result != null && result.isContinued()) {
      result =
          client.newWorkflowStub(AgentSessionWorkflow.class, sessionId).send(new SendRequest(""));
    }
    return result;
  }

  @Override
  public void close() {
    env.close();
    store.close();
  }
}
