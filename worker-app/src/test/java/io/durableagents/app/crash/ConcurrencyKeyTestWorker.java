package io.durableagents.app.crash;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.crash.CrashTestWorker.Ledger;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.Tool;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker process for {@link ConcurrencyKeyCrashIT}, meant to be killed with SIGKILL at any
 * moment: one agent whose runs call one tool that appends a ledger line (fsynced) when it starts
 * and when it ends, so the test can tell when each run was working.
 *
 * <p>Arguments: {@code PORT SQLITE_FILE TOOL_LEDGER}. Prints {@value CrashTestWorker#READY} once it
 * polls task queue {@value #TASK_QUEUE}, then runs until killed.
 */
public final class ConcurrencyKeyTestWorker {
  public static final String TASK_QUEUE = "keyed";
  public static final String AGENT = "keyed";
  static final String TOOL = "work";
  static final long TOOL_MS = 1500;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PID = ProcessHandle.current().pid();

  /** Every run: a turn that calls the tool, then the answer; a session's second run the same. */
  static final String SCRIPT =
      """
      {"turns": [
        {"delayMs": 200, "toolCalls": [{"name": "work", "arguments": {}}]},
        {"text": "done"},
        {"delayMs": 200, "toolCalls": [{"name": "work", "arguments": {}}]},
        {"text": "done again"}
      ]}
      """;

  private ConcurrencyKeyTestWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: ConcurrencyKeyTestWorker PORT SQLITE_FILE TOOL_LEDGER");
      System.exit(2);
    }
    String address = "127.0.0.1:" + Integer.parseInt(args[0]);
    Ledger ledger = new Ledger(Path.of(args[2]));
    WorkflowClient client = WorkflowClient.newInstance(AgentWorker.connect(address));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(
                    Agent.newBuilder(AGENT)
                        .setTools(tool(ledger))
                        .setMaxSteps(10)
                        .setModelTimeout(Duration.ofSeconds(3))
                        .setModelMaxAttempts(20)
                        .build())
                .setModelProvider(ScriptedModelProvider.fromJson(SCRIPT))
                .setStore(AgentStores.open("jdbc:sqlite:" + Path.of(args[1])))
                .setTaskQueues(TASK_QUEUE)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(TASK_QUEUE);
    factory.start();
    System.out.println(CrashTestWorker.READY + " pid=" + PID + " on " + address);
    System.out.flush();
    new CountDownLatch(1).await();
  }

  private static Tool tool(Ledger ledger) {
    return Tool.newBuilder(TOOL)
        .setDescription("Works for a while, with a ledger line when it starts and when it ends.")
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              ledger.append(line(context.sessionId(), context.run(), context.attempt(), "start"));
              Thread.sleep(TOOL_MS);
              ledger.append(line(context.sessionId(), context.run(), context.attempt(), "end"));
              return Map.of("pid", PID);
            })
        .setTimeout(Duration.ofSeconds(5))
        .setMaxAttempts(20)
        .build();
  }

  private static ObjectNode line(String sessionId, int run, int attempt, String phase) {
    ObjectNode line = JSON.createObjectNode();
    line.put("sessionId", sessionId);
    line.put("run", run);
    line.put("attempt", attempt);
    line.put("pid", PID);
    line.put("phase", phase);
    line.put("at", System.currentTimeMillis());
    return line;
  }
}
