package io.durableagents.app.crash;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.crash.CrashTestWorker.Ledger;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A worker process for {@link ToolCancellationIT}, meant to be killed with SIGKILL.
 *
 * <p>Arguments: {@code PORT SQLITE_FILE LEDGER ACTIVITY|LOCAL_ACTIVITY}. Agent {@value #AGENT}
 * calls the tool the message names: {@code long} (30 s of interruptible sleep) or {@code stubborn}
 * (3 s of work that ignores interrupts); each appends {@code start}, then {@code stopped} (with the
 * cancellation's reason) or {@code end} to the ledger, with the time and this process's pid.
 */
public final class CancelTestWorker {
  static final String TASK_QUEUE = "cancel";
  static final String AGENT = "canceller";
  static final String READY = "cancel worker ready";

  /** The model calls the tool the last user message names; after a tool result it answers. */
  static final class NamingModel implements ModelProvider {
    @Override
    public ModelResponse generate(ModelRequest request, ModelStream stream) {
      Message last = request.messages().get(request.messages().size() - 1);
      if (last.role() != Role.USER) {
        return new ModelResponse("after", List.of(), null, null);
      }
      return new ModelResponse(
          null,
          List.of(new ToolCall("call_" + request.step(), last.text(), JSON.createObjectNode())),
          null,
          null);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PID = ProcessHandle.current().pid();

  private CancelTestWorker() {}

  public static void main(String[] args) throws Exception {
    Execution mode = Execution.valueOf(args[3]);
    Ledger ledger = new Ledger(Path.of(args[2]));
    WorkflowClient client =
        WorkflowClient.newInstance(AgentWorker.connect("127.0.0.1:" + Integer.parseInt(args[0])));
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(
                    Agent.newBuilder(AGENT)
                        .setModelExecution(mode)
                        .setTools(longTool(ledger, mode), stubbornTool(ledger, mode))
                        .setMaxSteps(4)
                        .build())
                .setModelProvider(new NamingModel())
                .setStore(AgentStores.open("jdbc:sqlite:" + Path.of(args[1])))
                .setTaskQueues(TASK_QUEUE)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(TASK_QUEUE);
    factory.start();
    System.out.println(READY + " pid=" + PID);
    System.out.flush();
    new CountDownLatch(1).await();
  }

  private static Tool longTool(Ledger ledger, Execution mode) {
    return tool("long", mode)
        .setHandler(
            (arguments, context) -> {
              ledger.append(line("long", context, "start"));
              try {
                Thread.sleep(Duration.ofSeconds(30).toMillis());
              } catch (InterruptedException e) {
                ledger.append(line("long", context, "stopped"));
                throw e;
              }
              ledger.append(line("long", context, "end"));
              return Map.of("slept", true);
            })
        .build();
  }

  private static Tool stubbornTool(Ledger ledger, Execution mode) {
    return tool("stubborn", mode)
        .setHandler(
            (arguments, context) -> {
              ledger.append(line("stubborn", context, "start"));
              long end = System.nanoTime() + Duration.ofSeconds(3).toNanos();
              while (System.nanoTime() < end) {
                try {
                  Thread.sleep(50);
                } catch (InterruptedException ignored) {
                  // it does not stop
                }
              }
              ledger.append(line("stubborn", context, "end"));
              return Map.of("booked", true, "sawCancel", context.isCancelled());
            })
        .build();
  }

  private static Tool.Builder tool(String name, Execution mode) {
    return Tool.newBuilder(name)
        .setExecution(mode)
        .setInputSchema("{\"type\": \"object\"}")
        .setTimeout(Duration.ofMinutes(2));
  }

  private static ObjectNode line(String tool, ToolContext context, String phase) {
    ObjectNode line = JSON.createObjectNode();
    line.put("tool", tool);
    line.put("sessionId", context.sessionId());
    line.put("pid", PID);
    line.put("phase", phase);
    if (context.cancellation().reason() != null) {
      line.put("reason", context.cancellation().reason().name());
    }
    line.put("at", System.currentTimeMillis());
    return line;
  }
}
