package io.durableagents.app.crash;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.Execution;
import io.durableagents.app.AgentWorker;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.AgentStores;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import io.temporal.activity.Activity;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker process for {@link CrashRecoveryIT}, meant to be killed with SIGKILL at any moment.
 *
 * <p>Arguments: {@code PORT SQLITE_FILE TOOL_LEDGER MODEL_LEDGER [MODE [HANG]]}. It polls task
 * queue {@value #TASK_QUEUE} on {@code 127.0.0.1:PORT} with one agent, {@value #AGENT}, whose tools
 * and model append a line to a ledger (fsynced) before and after their work, so the test can count
 * effects per call and per model turn across every worker that ever ran. Prints {@value #READY}
 * once it polls, then runs until killed. With HANG {@value #HANG_AFTER_EFFECT}, each tool call
 * blocks after its effect, so a test can kill the worker between the effect and its record; with
 * {@value #HANG_AFTER_SAVE}, the first checkpoint save blocks once it committed, so a test can kill
 * the worker between a write of the store and the workflow task that asked for it.
 */
public final class CrashTestWorker {
  public static final String TASK_QUEUE = "crash";
  public static final String AGENT = "ledger";
  public static final String READY = "crash worker ready";
  static final String HANG_AFTER_EFFECT = "hang-after-effect";
  static final String HANG_AFTER_SAVE = "hang-after-save";
  static final String SAVED_AND_HANGING = "first checkpoint saved; hanging";

  /** Every session plays the same script: three model turns, five tool calls, one gated. */
  static final String SCRIPT =
      """
      {"turns": [
        {"text": "Working on it.", "delayMs": 800,
         "toolCalls": [{"name": "step_a", "arguments": {}},
                       {"name": "gated", "arguments": {}},
                       {"name": "step_b", "arguments": {}}]},
        {"delayMs": 600,
         "toolCalls": [{"name": "step_a", "arguments": {}},
                       {"name": "step_b", "arguments": {}}]},
        {"text": "done"}
      ]}
      """;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long PID = ProcessHandle.current().pid();

  private CrashTestWorker() {}

  public static void main(String[] args) throws Exception {
    String hangAt = args.length == 6 ? args[5] : "";
    if (args.length < 4
        || args.length > 6
        || (args.length == 6 && !Set.of(HANG_AFTER_EFFECT, HANG_AFTER_SAVE).contains(hangAt))) {
      System.err.println(
          "usage: CrashTestWorker PORT SQLITE_FILE TOOL_LEDGER MODEL_LEDGER"
              + " [ACTIVITY|LOCAL_ACTIVITY [hang-after-effect|hang-after-save]]");
      System.exit(2);
    }
    Execution mode = args.length >= 5 ? Execution.valueOf(args[4]) : Execution.ACTIVITY;
    boolean hang = HANG_AFTER_EFFECT.equals(hangAt);
    String address = "127.0.0.1:" + Integer.parseInt(args[0]);
    Ledger tools = new Ledger(Path.of(args[2]));
    Ledger models = new Ledger(Path.of(args[3]));
    CheckpointStore store = CheckpointStore.of(AgentStores.open("jdbc:sqlite:" + Path.of(args[1])));
    if (HANG_AFTER_SAVE.equals(hangAt)) {
      store = hangingAfterFirstSave(store);
    }
    WorkflowServiceStubs service = AgentWorker.connect(address);
    WorkflowClient client = WorkflowClient.newInstance(service);
    AgentsPlugin plugin =
        new AgentsPlugin(
            AgentsPluginOptions.newBuilder()
                .addAgent(agent(tools, mode, hang))
                .setModelProvider(new LedgerModel(ScriptedModelProvider.fromJson(SCRIPT), models))
                .setStore(store)
                .setTaskQueues(TASK_QUEUE)
                .build());
    WorkerFactory factory =
        WorkerFactory.newInstance(
            client, WorkerFactoryOptions.newBuilder().setPlugins(plugin).build());
    factory.newWorker(TASK_QUEUE);
    factory.start();
    System.out.println(READY + " pid=" + PID + " on " + address);
    System.out.flush();
    new CountDownLatch(1).await();
  }

  /**
   * {@code store}, whose first checkpoint save blocks once it committed: the worker is to be killed
   * with the entries in the store and the workflow task that wrote them not completed.
   */
  private static CheckpointStore hangingAfterFirstSave(CheckpointStore store) {
    AtomicBoolean saved = new AtomicBoolean();
    InvocationHandler handler =
        (proxy, method, methodArgs) -> {
          Object result;
          try {
            result = method.invoke(store, methodArgs);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
          if (method.getName().startsWith("saveCheckpoint") && !saved.getAndSet(true)) {
            System.out.println(SAVED_AND_HANGING);
            System.out.flush();
            Thread.sleep(Duration.ofMinutes(10).toMillis());
          }
          return result;
        };
    return (CheckpointStore)
        Proxy.newProxyInstance(
            CheckpointStore.class.getClassLoader(),
            new Class<?>[] {CheckpointStore.class},
            handler);
  }

  /**
   * Short timeouts, many attempts: a killed worker's calls run again elsewhere within seconds. The
   * model turns and the tools all run in {@code mode}.
   */
  static Agent agent(Ledger ledger, Execution mode, boolean hang) {
    return Agent.newBuilder(AGENT)
        .setModelExecution(mode)
        .setTools(
            tool("step_a", ledger, false, mode, hang),
            tool("gated", ledger, true, mode, hang),
            tool("step_b", ledger, false, mode, hang))
        .setMaxSteps(10)
        .setModelTimeout(Duration.ofSeconds(3))
        .setModelMaxAttempts(10)
        .build();
  }

  private static Tool tool(
      String name, Ledger ledger, boolean gated, Execution mode, boolean hang) {
    Tool.Builder builder =
        Tool.newBuilder(name)
            .setExecution(mode)
            .setDescription("Appends its effect to the ledger.")
            .setInputSchema("{\"type\": \"object\"}")
            .setHandler(
                (arguments, context) -> {
                  ledger.append(toolLine(name, context, "start"));
                  Thread.sleep(ThreadLocalRandom.current().nextLong(200, 1001));
                  ledger.append(toolLine(name, context, "end"));
                  if (hang) {
                    Thread.sleep(Duration.ofMinutes(10).toMillis());
                  }
                  Map<String, Object> result = new LinkedHashMap<>();
                  result.put("tool", name);
                  result.put("toolCallId", context.toolCallId());
                  result.put("attempt", context.attempt());
                  result.put("pid", PID);
                  return result;
                })
            .setTimeout(Duration.ofSeconds(3))
            .setMaxAttempts(10);
    return gated ? builder.setApprovalPolicy(ApprovalPolicy.ALWAYS).build() : builder.build();
  }

  static ObjectNode toolLine(String tool, ToolContext context, String phase) {
    ObjectNode line = JSON.createObjectNode();
    line.put("toolCallId", context.toolCallId());
    line.put("sessionId", context.sessionId());
    line.put("tool", tool);
    line.put("attempt", context.attempt());
    line.put("activityId", activityId());
    line.put("idempotencyKey", context.idempotencyKey());
    line.put("pid", PID);
    line.put("phase", phase);
    line.put("at", System.currentTimeMillis());
    return line;
  }

  /**
   * The id of the activity this thread runs (tools and providers run on the activity's thread).
   * Every scheduled activity has its own id, the same on all of its attempts: two ids for one call
   * or one turn would mean the workflow scheduled recorded work again.
   */
  private static String activityId() {
    return Activity.getExecutionContext().getInfo().getActivityId();
  }

  /**
   * The scripted model, with a ledger line before and after every generation. A line with phase
   * {@code end} means the provider produced an answer (whether or not Temporal recorded it).
   */
  static final class LedgerModel implements ModelProvider {
    private final ModelProvider delegate;
    private final Ledger ledger;

    LedgerModel(ModelProvider delegate, Ledger ledger) {
      this.delegate = delegate;
      this.ledger = ledger;
    }

    @Override
    public ModelResponse generate(ModelRequest request, ModelStream stream) {
      ledger.appendUnchecked(modelLine(request, "start"));
      ModelResponse response = delegate.generate(request, stream);
      ledger.appendUnchecked(modelLine(request, "end"));
      return response;
    }

    private static ObjectNode modelLine(ModelRequest request, String phase) {
      ObjectNode line = JSON.createObjectNode();
      line.put("kind", "model");
      line.put("sessionId", request.sessionId());
      line.put("turn", request.assistantTurns());
      line.put("step", request.step());
      line.put("attempt", Activity.getExecutionContext().getInfo().getAttempt());
      line.put("activityId", activityId());
      line.put("pid", PID);
      line.put("phase", phase);
      line.put("at", System.currentTimeMillis());
      return line;
    }
  }

  /**
   * An append-only JSON-lines file shared by every worker process: one {@code write} per line on a
   * channel opened in append mode (so lines of concurrent processes never interleave), under a lock
   * within the process, forced to disk before the call returns.
   */
  static final class Ledger {
    private final FileChannel channel;

    Ledger(Path file) throws IOException {
      this.channel =
          FileChannel.open(
              file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    synchronized void append(ObjectNode line) throws IOException {
      ByteBuffer bytes =
          ByteBuffer.wrap((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    }

    void appendUnchecked(ObjectNode line) {
      try {
        append(line);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
