package io.durableagents.app.crash;

import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.crash.CrashTestWorker.Ledger;
import io.durableagents.app.crash.CrashTestWorker.LedgerModel;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.Tool;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker process for {@link RecoveryTimeIT}: everything at its defaults (worker options, the
 * agent's timeouts and retries) but the scripted model and one slow tool, both writing ledger lines
 * before and after their work so the test knows when to kill.
 *
 * <p>Arguments: {@code ADDRESS TASK_QUEUE SQLITE_FILE TOOL_LEDGER MODEL_LEDGER
 * ACTIVITY|LOCAL_ACTIVITY}. Prints {@value CrashTestWorker#READY} once it polls, then runs until
 * killed.
 */
public final class RecoveryTestWorker {
  public static final String AGENT = "recovery";
  public static final String TOOL = "slow";
  static final long MODEL_DELAY_MS = 2000;
  static final long TOOL_MS = 5000;

  /** A slow turn that calls the slow tool, then the answer. */
  static final String SCRIPT =
      """
      {"turns": [
        {"text": "Working on it.", "delayMs": %d, "toolCalls": [{"name": "slow", "arguments": {}}]},
        {"text": "done"}
      ]}
      """
          .formatted(MODEL_DELAY_MS);

  private RecoveryTestWorker() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6) {
      System.err.println(
          "usage: RecoveryTestWorker ADDRESS TASK_QUEUE SQLITE_FILE TOOL_LEDGER MODEL_LEDGER ACTIVITY|LOCAL_ACTIVITY");
      System.exit(2);
    }
    String taskQueue = args[1];
    Execution mode = Execution.valueOf(args[5]);
    Ledger tools = new Ledger(Path.of(args[3]));
    Ledger models = new Ledger(Path.of(args[4]));
    WorkflowClient client = WorkflowClient.newInstance(AgentWorker.connect(args[0]));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(
                    Agent.newBuilder(AGENT)
                        .setModelExecution(mode)
                        .setTools(slowTool(tools, mode))
                        .build())
                .setModelProvider(new LedgerModel(ScriptedModelProvider.fromJson(SCRIPT), models))
                .setStore(AgentStores.open("jdbc:sqlite:" + Path.of(args[2])))
                .setTaskQueues(taskQueue)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(taskQueue);
    factory.start();
    System.out.println(
        CrashTestWorker.READY + " pid=" + ProcessHandle.current().pid() + " on " + args[0]);
    System.out.flush();
    new CountDownLatch(1).await();
  }

  private static Tool slowTool(Ledger ledger, Execution mode) {
    return Tool.newBuilder(TOOL)
        .setExecution(mode)
        .setDescription("Works for a few seconds, with a ledger line before and after.")
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              ledger.append(CrashTestWorker.toolLine(TOOL, context, "start"));
              Thread.sleep(TOOL_MS);
              ledger.append(CrashTestWorker.toolLine(TOOL, context, "end"));
              return Map.of("tool", TOOL, "pid", ProcessHandle.current().pid());
            })
        .build();
  }
}
