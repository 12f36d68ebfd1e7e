package io.durableagents.app.hostile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.AgentsProcesses.Result;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.DecisionOptions;
import io.durableagents.client.InvalidInputException;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.ForkOutcome;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.common.v1.Payloads;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.enums.v1.WorkflowIdConflictPolicy;
import io.temporal.api.update.v1.Input;
import io.temporal.api.update.v1.Meta;
import io.temporal.api.update.v1.Request;
import io.temporal.api.update.v1.WaitPolicy;
import io.temporal.api.workflowservice.v1.SignalWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.UpdateWorkflowExecutionResponse;
import io.temporal.client.UpdateOptions;
import io.temporal.client.WithStartWorkflowOperation;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateStage;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and careless client input against a real stack: the Temporal CLI's dev server and an
 * {@code agents worker} process, driven by {@code agents} child processes (generated arguments,
 * files, standard input, ports, projection URLs), by {@link AgentClient}, and by raw update,
 * update-with-start and signal payloads as a client of another SDK could send them. Each input gets
 * a defined error (exit code, exception type, update failure) or is stored exactly as sent; the
 * sessions it touched are unchanged or settled; the worker stays up and logs a refusal as one line;
 * and the next valid send is answered within seconds.
 *
 * <p>Inputs come from {@link HostileInputs} with a fixed seed, printed; rerun one with {@code
 * -Dhostile.seed=N}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HostileClientInputIT {
  private static final long SEED = Long.getLong("hostile.seed", 17L);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  /** How soon the next valid send must be answered after a hostile one. */
  private static final Duration ANSWERED_WITHIN = Duration.ofSeconds(10);

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static TemporalDevServer server;
  private static AgentsProcesses agents;
  private static WorkflowServiceStubs service;
  private static WorkflowClient temporal;
  private static ProjectionReader projection;
  private static AgentClient client;
  private static HostileInputs inputs;
  private static ExecutorService calls;

  /** Ids whose first send was refused, closed once their grace has passed. */
  private static final List<String> REFUSED_FIRST_SENDS =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  @BeforeAll
  static void startServerAndWorker() throws Exception {
    System.out.println(
        "HostileClientInputIT seed=" + SEED + " (rerun with -Dhostile.seed=" + SEED + ")");
    inputs = new HostileInputs(SEED);
    server = RealTemporal.start(Files.createDirectories(dir.resolve("server")));
    Path script =
        Files.writeString(dir.resolve("script.json"), "{\"turns\": [{\"text\": \"Hello.\"}]}");
    agents = new AgentsProcesses(dir, Map.of("TEMPORAL_ADDRESS", server.address()));
    agents.startAndAwait(
        "worker polling task queue 'agents' on " + server.address(),
        "worker",
        "--model",
        "scripted:" + script);
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    temporal = WorkflowClient.newInstance(service);
    projection =
        ProjectionReader.open("jdbc:sqlite:" + dir.resolve(".agents").resolve("projection.db"));
    client =
        AgentClient.newInstance(
            temporal, AgentClientOptions.newBuilder().setProjection(projection).build());
    calls = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stop() {
    if (calls != null) {
      calls.shutdownNow();
    }
    if (service != null) {
      service.shutdownNow();
    }
    if (agents != null) {
      agents.close();
    }
    if (server != null) {
      server.close();
    }
  }

  // ---- CLI ------------------------------------------------------------------------------------

  @Test
  @Order(1)
  void cliArguments_getDefinedErrors_andTextIsSentAsGiven() throws Exception {
    String base = inputs.validSessionId("cli-");
    send(base, "hello");
    SessionStatus before = status(base);
    Path secret = Files.writeString(dir.resolve("secret.txt"), "the content of a file");
    Path folder = Files.createDirectories(dir.resolve("a-directory"));
    Path huge = dir.resolve("huge.txt");
    Files.write(huge, "y".repeat(10 * 1024 * 1024).getBytes(StandardCharsets.US_ASCII));
    Path controls =
        Files.writeString(dir.resolve("controls.txt"), "\u0002".repeat(Limits.INPUT_CHARS));
    String fileText = inputs.validText(3000);
    Path textFile = Files.writeString(dir.resolve("text.txt"), fileText);
    String stdinText = inputs.validText(3000);
    String atText = "@" + secret;
    String dashText = "-" + inputs.asciiArgument(40);
    String argText = inputs.asciiArgument(200);
    String neverCreated = inputs.validSessionId("never-");

    List<CliCase> cases = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String badId = inputs.invalidAsciiSessionId();
      cases.add(
          CliCase.refused(
              "invalid session id " + printable(badId),
              2,
              "Invalid session id",
              "send",
              badId,
              "hi"));
    }
    String port = inputs.invalidPort();
    cases.add(
        CliCase.refused(
            "port " + port,
            2,
            "expected HOST:PORT with a port of 1-65535",
            "status",
            base,
            "--temporal",
            "127.0.0.1:" + port));
    cases.add(
        CliCase.refused(
            "empty port", 2, "expected HOST:PORT", "send", base, "hi", "--temporal", "127.0.0.1:"));
    cases.add(
        CliCase.refused(
            "http port " + port,
            2,
            "--http-port must be between 1 and 65535",
            "worker",
            "--http-port",
            port));
    cases.add(
        CliCase.refused(
            "projection is a directory",
            1,
            "names a directory",
            "approvals",
            "--projection",
            "jdbc:sqlite:" + folder));
    cases.add(
        CliCase.refused(
            "projection file missing",
            1,
            "no projection database at",
            "history",
            base,
            "--projection",
            "jdbc:sqlite:" + dir.resolve("nowhere.db")));
    cases.add(
        CliCase.refused(
            "projection of another database",
            2,
            "unsupported projection URL",
            "approvals",
            "--projection",
            "jdbc:mysql://localhost/agents"));
    cases.add(
        CliCase.refused(
            "unknown option",
            2,
            "Unknown option",
            "send",
            base,
            "hi",
            "--bogus-" + inputs.asciiArgument(12)));
    String maxSteps = String.valueOf(-inputs.between(0, 9));
    cases.add(
        CliCase.refused(
            "max steps " + maxSteps,
            2,
            "--max-steps must be 1 to " + Limits.MAX_STEPS + ", got " + maxSteps + ".",
            "send",
            base,
            "hi",
            "--max-steps",
            maxSteps));
    cases.add(
        CliCase.refused(
            "agent name",
            2,
            "Invalid agent name",
            "send",
            neverCreated,
            "hi",
            "--agent",
            "a".repeat(Limits.AGENT_NAME_CHARS) + inputs.asciiArgument(20)));
    cases.add(
        CliCase.refused(
            "ten megabytes",
            2,
            "over the limit of " + Limits.INPUT_CHARS,
            "send",
            neverCreated,
            "--input-file",
            huge.toString()));
    cases.add(
        CliCase.refused(
            "control characters",
            2,
            "bytes serialized, over the limit of " + Limits.REQUEST_BYTES,
            "send",
            base,
            "--input-file",
            controls.toString()));
    cases.add(
        CliCase.refused(
            "input file is a directory",
            2,
            "is a directory",
            "send",
            base,
            "--input-file",
            folder.toString()));
    cases.add(
        CliCase.refused(
            "text and input file",
            2,
            "not both",
            "send",
            base,
            "hi",
            "--input-file",
            secret.toString()));
    cases.add(
        CliCase.withStdin(
            "standard input not UTF-8",
            inputs.notUtf8(),
            2,
            "standard input is not UTF-8 text",
            "send",
            base,
            "-"));
    cases.add(
        CliCase.sent("an @ argument", atText, 0, "send", inputs.validSessionId("at-"), atText));
    cases.add(
        CliCase.sent(
            "a text after --",
            dashText,
            0,
            "send",
            inputs.validSessionId("dash-"),
            "--",
            dashText));
    cases.add(
        CliCase.sent("ascii text", argText, 0, "send", inputs.validSessionId("arg-"), argText));
    cases.add(
        CliCase.sent(
            "a generated text file",
            fileText,
            0,
            "send",
            inputs.validSessionId("file-"),
            "--input-file",
            textFile.toString()));
    cases.add(
        CliCase.sentFromStdin(
            "generated standard input",
            stdinText,
            0,
            "send",
            inputs.validSessionId("stdin-"),
            "-"));

    List<Future<Result>> results = new ArrayList<>();
    for (CliCase c : cases) {
      results.add(calls.submit(() -> timed(c)));
      if (results.size() % 3 == 0) {
        results.get(results.size() - 1).get(); // at most three JVMs starting at once
      }
    }
    for (int i = 0; i < cases.size(); i++) {
      CliCase c = cases.get(i);
      Result result = results.get(i).get();
      assertThat(result.exitCode()).as(c.label() + ": " + result.err()).isEqualTo(c.exitCode());
      assertThat(result.err()).as(c.label()).doesNotContain("\tat ").doesNotContain("Exception");
      assertThat(result.err()).as(c.label()).doesNotContain("is a worker polling");
      if (c.errorFragment() != null) {
        assertThat(result.err()).as(c.label()).contains(c.errorFragment());
      }
      if (c.sentText() != null) {
        String session = c.args()[1];
        assertThat(userTexts(session)).as(c.label()).containsExactly(c.sentText());
      }
    }
    assertThat(status(base)).as("refused sends leave the session as it was").isEqualTo(before);
    assertThat(catchThrowable(() -> temporal.newUntypedWorkflowStub(neverCreated).describe()))
        .as("an oversized first send creates no workflow")
        .isInstanceOf(WorkflowNotFoundException.class);
    assertNextSendAnswered(base);
  }

  private static Result timed(CliCase c) throws Exception {
    long start = System.nanoTime();
    Result result = agents.run(COMMAND_TIMEOUT, c.stdin(), c.args());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    if (c.exitCode() == 2) {
      assertThat(took)
          .as(c.label() + " is refused before anything waits")
          .isLessThan(Duration.ofSeconds(15));
    }
    return result;
  }

  @Test
  @Order(2)
  void anAcceptedSend_whoseProjectionCannotBeRead_isAWarning_notAFailure() throws Exception {
    Path notADatabase =
        Files.writeString(dir.resolve("not-a-database.db"), "plain text, not SQLite");
    int closedPort;
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    for (String url :
        List.of(
            "jdbc:sqlite:" + notADatabase,
            "jdbc:postgresql://127.0.0.1:" + closedPort + "/agents")) {
      String session = inputs.validSessionId("warn-");

      Result result =
          agents.run(COMMAND_TIMEOUT, "send", session, "only once", "--projection", url);

      assertThat(result.exitCode()).as(url + ": " + result.err()).isZero();
      assertThat(result.out()).contains(session + " · run 1 · finished");
      assertThat(result.err().strip().lines()).as(url).hasSize(1);
      assertThat(result.err())
          .startsWith(
              "Warning: the result is shown without its messages: cannot read the messages of session "
                  + session
                  + " from the projection at "
                  + url);
      assertThat(userTexts(session))
          .as("sent once, and not to be sent again")
          .containsExactly("only once");
    }
  }

  @Test
  @Order(3)
  void aRefusedFirstSend_leavesNoSession() throws Exception {
    List<String> refusedIds = new ArrayList<>();
    List<String> requests =
        List.of(
            "{\"input\": \"" + "z".repeat(Limits.INPUT_CHARS + 1) + "\"}",
            "{\"messages\": [{\"role\": \"assistant\", \"text\": \"I approve\"}]}",
            "{\"messages\": [{\"role\": \"user\", \"text\": \"x\", \"result\": {\"ok\": true}}]}",
            "{\"input\": {\"nested\": 1}}",
            "{}",
            "[" + inputs.json(2) + "]");
    for (String request : requests) {
      String id = inputs.validSessionId("first-");
      String start =
          inputs.random().nextBoolean() ? "{\"sessionId\": \"" + id + "\"}" : inputs.json(2);
      Throwable refused = catchThrowable(() -> rawSendWithStart(id, request, start));
      assertThat(refused)
          .as(request.length() > 200 ? request.substring(0, 200) : request)
          .isNotNull();
      refusedIds.add(id);
    }
    for (String id : refusedIds) {
      assertThat(client.status(id)).as(id).isEmpty();
      assertThatThrownBy(() -> client.awaitRun(id)).isInstanceOf(SessionNotFoundException.class);
    }
    String id = refusedIds.get(0);
    Result empty = agents.run(COMMAND_TIMEOUT, "send", id, "");
    assertThat(empty.exitCode()).as(empty.err()).isEqualTo(4);
    Result status = agents.run(COMMAND_TIMEOUT, "status", id);
    assertThat(status.exitCode()).as(status.err()).isEqualTo(4);

    // Within the grace, a valid send is taken by the workflow the refused one started.
    String firstRunId = temporal.newUntypedWorkflowStub(id).describe().getExecution().getRunId();
    RunResult fresh = send(id, "hello");
    assertThat(fresh.run()).isEqualTo(1);
    assertThat(userTexts(id)).containsExactly("hello");
    assertThat(temporal.newUntypedWorkflowStub(id).describe().getExecution().getRunId())
        .isEqualTo(firstRunId);
    REFUSED_FIRST_SENDS.addAll(refusedIds.subList(1, refusedIds.size()));

    String oddStart = inputs.validSessionId("odd-start-");
    JsonNode answered =
        rawSendWithStart(oddStart, "{\"input\": \"hi\"}", "{\"sessionId\": [1], \"maxSteps\": {}}");
    assertThat(answered.path("status").asText()).isEqualTo(RunStatus.FINISHED.value());
  }

  private static JsonNode rawSendWithStart(String sessionId, String request, String start)
      throws Exception {
    WorkflowStub stub =
        temporal.newUntypedWorkflowStub(
            "AgentSession",
            WorkflowOptions.newBuilder()
                .setWorkflowId(sessionId)
                .setTaskQueue("agents")
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING)
                .build());
    Future<JsonNode> answer =
        calls.submit(
            () ->
                stub.executeUpdateWithStart(
                    UpdateOptions.newBuilder(JsonNode.class)
                        .setUpdateName("send")
                        .setWaitForStage(WorkflowUpdateStage.COMPLETED)
                        .build(),
                    new Object[] {JSON.readTree(request)},
                    new Object[] {JSON.readTree(start)}));
    try {
      return answer.get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  private static WorkflowExecutionStatus awaitClosed(String id) {
    return awaitClosed(id, Duration.ofSeconds(10));
  }

  private static WorkflowExecutionStatus awaitClosed(String id, Duration within) {
    return await("workflow %s closed".formatted(id))
        .atMost(within)
        .pollInterval(Duration.ofMillis(100))
        .pollDelay(Duration.ZERO)
        .pollInSameThread()
        .until(
            () -> temporal.newUntypedWorkflowStub(id).describe().getStatus(),
            status -> status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
  }

  // ---- AgentClient ----------------------------------------------------------------------------

  @Test
  @Order(4)
  void agentClientInputs_areStoredExactly_orRefusedBeforeSending() throws Exception {
    List<String> sessions =
        List.of(inputs.validSessionId("api-a-"), inputs.validSessionId("api-b-"));
    for (String session : sessions) {
      send(session, "hello");
    }
    List<String> accepted = new ArrayList<>(List.of("a".repeat(Limits.INPUT_CHARS)));
    for (int i = 0; i < 30; i++) {
      String session = sessions.get(i % sessions.size());
      int kind = inputs.random().nextInt(4);
      if (kind == 0) {
        accepted.add(inputs.validText(4000));
        continue;
      }
      SessionStatus before = status(session);
      long start = System.nanoTime();
      if (kind == 1) {
        HostileInputs.Refused refused = inputs.refusedText();
        assertThat(catchThrowable(() -> client.send(session, refused.text())))
            .as(refused.what() + ": " + printable(refused.text()))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining(refused.reason());
      } else {
        String badId = inputs.invalidSessionId();
        assertThat(catchThrowable(() -> client.send(badId, "hi")))
            .as(printable(badId))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("Invalid session id");
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
      assertThat(status(session)).isEqualTo(before);
    }
    System.out.println(
        "AgentClient: " + accepted.size() + " texts to store exactly, the others refused");
    String session = sessions.get(0);
    List<String> expected = new ArrayList<>(userTexts(session));
    for (String text : accepted) {
      RunResult result = send(session, text);
      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      expected.add(text);
    }
    assertThat(userTexts(session)).as("every accepted text, exactly as sent").isEqualTo(expected);
  }

  // ---- raw payloads ---------------------------------------------------------------------------

  @Test
  @Order(5)
  void rawUpdatePayloads_areRefusedOrRun_andTheSessionAnswersNext() throws Exception {
    String session = inputs.validSessionId("raw-");
    send(session, "hello");
    List<String[]> updates = new ArrayList<>();
    for (String fixed :
        List.of(
            "{\"input\": \"\\ud800\"}",
            "{\"input\": \"ok\\udc00\"}",
            "{\"messages\": [null]}",
            "{\"messages\": \"x\"}",
            "{\"trigger\": \"x\"}",
            "null",
            "[]",
            "42",
            "{\"input\": {}}",
            "{not json",
            "{\"messages\": [{\"role\": \"tool\", \"toolCallId\": \"c\", \"result\": 1}]}",
            "{\"trigger\": {\"source\": \"s\", \"payload\": \""
                + "p".repeat(Limits.INPUT_CHARS)
                + "\"}}",
            "{\"trigger\": {\"source\": \"s\", \"payload\": {}, \"attachments\": [{\"artifactId\": \"no-such-artifact\"}]}}",
            "{\"messages\": [{\"role\": \"user\", \"text\": \"see\", \"attachments\": [{\"artifactId\": \"../../etc/passwd\"}]}]}",
            "{\"messages\": [{\"role\": \"user\"}], \"input\": 7}")) {
      updates.add(new String[] {"send", fixed});
    }
    for (int i = 0; i < 25; i++) {
      updates.add(
          new String[] {
            inputs.pick(List.of("send", "send", "approve", "no-such-update")), inputs.json(3)
          });
    }
    int refused = 0;
    for (String[] update : updates) {
      SessionStatus before = status(session);
      Outcome outcome = rawUpdate(session, update[0], update[1]);
      String label =
          update[0]
              + " "
              + (update[1].length() > 120 ? update[1].substring(0, 120) + "..." : update[1]);
      assertThat(outcome.failure() != null || outcome.success() != null)
          .as(label + ": a defined outcome")
          .isTrue();
      SessionStatus after = status(session);
      if (outcome.failure() != null) {
        refused++;
        assertThat(after).as(label + " refused: " + outcome.failure()).isEqualTo(before);
      } else {
        assertThat(update[0]).isEqualTo("send");
        RunResult run = JSON.readValue(outcome.success(), RunResult.class);
        assertThat(RunStatus.settled(run.status())).as(label).isTrue();
        assertThat(after.run()).as(label).isIn(before.run(), before.run() + 1);
      }
    }
    System.out.println(
        "raw updates: " + updates.size() + " sent, " + refused + " refused, the others answered");
    assertNextSendAnswered(session);
  }

  @Test
  @Order(6)
  void rawSignalPayloads_leaveAnIdleSessionAsItWas() throws Exception {
    String session = inputs.validSessionId("signal-");
    send(session, "hello");
    SessionStatus before = status(session);
    for (int i = 0; i < 15; i++) {
      String name = inputs.pick(List.of("cancel", "decide", "no-such-signal"));
      String payload = i == 0 ? "\"" + "n".repeat(1024 * 1024) + "\"" : inputs.json(3);
      service
          .blockingStub()
          .withDeadlineAfter(20, TimeUnit.SECONDS)
          .signalWorkflowExecution(
              SignalWorkflowExecutionRequest.newBuilder()
                  .setNamespace("default")
                  .setWorkflowExecution(WorkflowExecution.newBuilder().setWorkflowId(session))
                  .setSignalName(name)
                  .setInput(jsonPayloads(payload))
                  .setIdentity("hostile-test")
                  .build());
    }
    assertNextSendAnswered(session);
    SessionStatus after = status(session);
    assertThat(after.run()).isEqualTo(before.run() + 1);
    assertThat(userTexts(session)).containsExactly("hello", "next");
  }

  // ---- forks and decisions ----------------------------------------------------------------------

  @Test
  @Order(7)
  void forks_areMadeWhole_orNotAtAll_andTheCommandSaysWhich() throws Exception {
    String source = inputs.validSessionId("fork-src-");
    send(source, "hello");
    int step = projection.history(source, 1).get(0).step();
    String defaultId = source + ".fork-1";

    // Patches the entry cannot take: refused before anything is created, exit 2, naming the cause.
    Result unknownCall =
        agents.run(
            COMMAND_TIMEOUT,
            "fork",
            source,
            "--from-step",
            "" + step,
            "--tool-result",
            "call_9_9={}");
    assertThat(unknownCall.exitCode()).as(unknownCall.err()).isEqualTo(2);
    assertThat(unknownCall.err()).contains("The transcript has no tool call 'call_9_9' to patch.");
    String bigState = "{\"blob\": \"" + "s".repeat(Limits.BUSINESS_STATE_BYTES) + "\"}";
    Result tooLarge =
        agents.run(
            COMMAND_TIMEOUT,
            "fork",
            source,
            "--from-step",
            "" + step,
            "--business-state",
            bigState);
    assertThat(tooLarge.exitCode()).as(tooLarge.err()).isEqualTo(2);
    assertThat(tooLarge.err()).contains("over the limit of " + Limits.BUSINESS_STATE_BYTES);
    String longInput = "i".repeat(Limits.INPUT_CHARS + 1);
    assertThatThrownBy(
            () -> client.fork(source, step, new ForkPatch(null, null, null, longInput), null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("over the limit of " + Limits.INPUT_CHARS);
    assertThatThrownBy(() -> temporal.newUntypedWorkflowStub(defaultId).describe())
        .as("nothing was created")
        .isInstanceOf(WorkflowNotFoundException.class);

    // A fork started past the client (another SDK) that the worker refuses: its creator's update
    // answers the reason, the workflow completes without a session, and the id is free again.
    String refusedId = source + ".raw";
    AgentSessionWorkflow raw =
        temporal.newWorkflowStub(
            AgentSessionWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(refusedId)
                .setTaskQueue("agents")
                .setWorkflowIdConflictPolicy(
                    WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_FAIL)
                .build());
    ForkPatch unknownCallPatch =
        new ForkPatch(
            null,
            null,
            List.of(new ForkPatch.ToolResultPatch("call_9_9", JSON.readTree("{}"))),
            null);
    ForkOutcome refused =
        calls
            .submit(
                () ->
                    WorkflowClient.executeUpdateWithStart(
                        raw::forkPrepared,
                        UpdateOptions.newBuilder(ForkOutcome.class)
                            .setUpdateName("forkPrepared")
                            .setWaitForStage(WorkflowUpdateStage.COMPLETED)
                            .build(),
                        new WithStartWorkflowOperation<>(
                            raw::run,
                            new SessionStart(
                                refusedId,
                                null,
                                null,
                                new ForkSource(source, step, unknownCallPatch)))))
            .get(30, TimeUnit.SECONDS);
    assertThat(refused.refusal()).isEqualTo("The transcript has no tool call 'call_9_9' to patch.");
    assertThat(awaitClosed(refusedId))
        .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    assertThat(client.status(refusedId)).isEmpty();
    assertThat(projection.session(refusedId)).isEmpty();
    Result noSession = agents.run(COMMAND_TIMEOUT, "send", refusedId, "");
    assertThat(noSession.exitCode()).as(noSession.err()).isEqualTo(4);

    // The same id, forked properly: made whole, its transcript the source's.
    Result made =
        agents.run(COMMAND_TIMEOUT, "fork", source, "--from-step", "" + step, "--as", refusedId);
    assertThat(made.exitCode()).as(made.err()).isZero();
    assertThat(made.out()).contains("Forked " + source + " at step " + step + " as " + refusedId);
    assertThat(userTexts(refusedId)).containsExactly("hello");
    assertThat(client.status(refusedId)).isPresent();
    Result taken =
        agents.run(COMMAND_TIMEOUT, "fork", source, "--from-step", "" + step, "--as", refusedId);
    assertThat(taken.exitCode()).as(taken.err()).isEqualTo(1);
    assertThat(taken.err())
        .contains("Session '" + refusedId + "' already exists; choose another id.");

    // Forks with default ids at once: each gets its own id, none is refused.
    List<Future<io.durableagents.client.ForkResult>> forks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      forks.add(calls.submit(() -> client.fork(source, step, null, null)));
    }
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (Future<io.durableagents.client.ForkResult> fork : forks) {
      ids.add(fork.get(60, TimeUnit.SECONDS).sessionId());
    }
    assertThat(ids)
        .containsExactlyInAnyOrder(
            source + ".fork-1", source + ".fork-2", source + ".fork-3", source + ".fork-4");
    assertNextSendAnswered(source + ".fork-2");
  }

  @Test
  @Order(8)
  void decisionsOverALimit_areRefusedBeforeSending() throws Exception {
    String session = inputs.validSessionId("decide-");
    send(session, "hello");
    SessionStatus before = status(session);
    String note = "n".repeat(Limits.NOTE_CHARS + 1);
    Result reject = agents.run(COMMAND_TIMEOUT, "reject", session, "a-1", "--note", note);
    assertThat(reject.exitCode()).as(reject.err()).isEqualTo(2);
    assertThat(reject.err())
        .contains(
            "The note is " + note.length() + " characters, over the limit of " + Limits.NOTE_CHARS);
    Result approve =
        agents.run(
            COMMAND_TIMEOUT,
            "approve",
            session,
            "a-1",
            "--by",
            "b".repeat(Limits.DECIDED_BY_CHARS + 1));
    assertThat(approve.exitCode()).as(approve.err()).isEqualTo(2);
    assertThat(approve.err())
        .contains("decidedBy is " + (Limits.DECIDED_BY_CHARS + 1) + " characters");
    String hugeNote = "h".repeat(3 * 1024 * 1024);
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                client.reject(
                    session,
                    "a-1",
                    DecisionOptions.newBuilder().setNote(hugeNote).setDecidedBy("ops").build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("over the limit of " + Limits.NOTE_CHARS);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    assertThat(status(session)).isEqualTo(before);
    assertNextSendAnswered(session);
  }

  @Test
  @Order(10)
  void refusedFirstSends_completeAfterTheirGrace_andNoSessionIsListed() throws Exception {
    assertThat(REFUSED_FIRST_SENDS).isNotEmpty();
    for (String id : REFUSED_FIRST_SENDS) {
      assertThat(awaitClosed(id, Duration.ofSeconds(90)))
          .as(id)
          .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
      assertThat(client.status(id)).as(id).isEmpty();
    }
    Result open = agents.run(COMMAND_TIMEOUT, "sessions", "--json");
    assertThat(open.exitCode()).as(open.err()).isZero();
    for (String refused : REFUSED_FIRST_SENDS) {
      assertThat(open.out()).doesNotContain("\"" + refused + "\"");
    }
  }

  // ---- the worker -----------------------------------------------------------------------------

  @Test
  @Order(9)
  void theWorker_isAlive_andLoggedEachRefusalAsOneLine_withoutFailingAWorkflowTask() {
    assertThat(agents.process("worker").isAlive()).isTrue();
    List<String> lines =
        agents.backgroundOutput().lines().filter(line -> line.startsWith("[worker] ")).toList();
    assertThat(lines).noneMatch(line -> line.contains("Workflow execution failure"));
    assertThat(lines).noneMatch(line -> line.contains("Workflow task processing failure"));
    int refusals = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(" INFO Rejection - ")) {
        refusals++;
        assertThat(lines.get(i)).contains(" refused ");
        if (i + 1 < lines.size()) {
          assertThat(lines.get(i + 1))
              .as("after " + lines.get(i))
              .doesNotStartWith("[worker] \tat ")
              .doesNotStartWith("[worker] io.temporal");
        }
      }
    }
    assertThat(refusals).isGreaterThan(5);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static RunResult send(String session, String text) throws Exception {
    Future<RunResult> answer = calls.submit(() -> client.send(session, text));
    return answer.get(30, TimeUnit.SECONDS);
  }

  private static void assertNextSendAnswered(String session) throws Exception {
    long start = System.nanoTime();
    RunResult next =
        calls
            .submit(() -> client.send(session, "next"))
            .get(ANSWERED_WITHIN.toSeconds(), TimeUnit.SECONDS);
    assertThat(RunStatus.settled(next.status())).as(String.valueOf(next.status())).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ANSWERED_WITHIN);
  }

  private static SessionStatus status(String session) {
    return client.status(session).orElseThrow();
  }

  private static List<String> userTexts(String session) {
    return projection.messages(session, -1).stream()
        .filter(message -> message.role() == Role.USER)
        .map(Message::text)
        .toList();
  }

  private record Outcome(String failure, String success) {}

  /** An update as raw as it gets: JSON bytes in a payload, straight to the frontend. */
  private static Outcome rawUpdate(String session, String name, String json) {
    UpdateWorkflowExecutionResponse response =
        service
            .blockingStub()
            .withDeadlineAfter(20, TimeUnit.SECONDS)
            .updateWorkflowExecution(
                UpdateWorkflowExecutionRequest.newBuilder()
                    .setNamespace("default")
                    .setWorkflowExecution(WorkflowExecution.newBuilder().setWorkflowId(session))
                    .setWaitPolicy(
                        WaitPolicy.newBuilder()
                            .setLifecycleStage(
                                UpdateWorkflowExecutionLifecycleStage
                                    .UPDATE_WORKFLOW_EXECUTION_LIFECYCLE_STAGE_COMPLETED))
                    .setRequest(
                        Request.newBuilder()
                            .setMeta(
                                Meta.newBuilder()
                                    .setUpdateId(UUID.randomUUID().toString())
                                    .setIdentity("hostile-test"))
                            .setInput(Input.newBuilder().setName(name).setArgs(jsonPayloads(json))))
                    .build());
    if (response.getOutcome().hasFailure()) {
      return new Outcome(response.getOutcome().getFailure().getMessage(), null);
    }
    if (response.getOutcome().hasSuccess()) {
      return new Outcome(
          null, response.getOutcome().getSuccess().getPayloads(0).getData().toStringUtf8());
    }
    return new Outcome(null, null);
  }

  private static Payloads jsonPayloads(String json) {
    return Payloads.newBuilder()
        .addPayloads(
            Payload.newBuilder()
                .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
                .setData(ByteString.copyFromUtf8(json)))
        .build();
  }

  private static String printable(String text) {
    StringBuilder out = new StringBuilder();
    text.codePoints()
        .limit(60)
        .forEach(
            cp -> {
              if (cp < 0x20
                  || cp == 0x7f
                  || Character.getType(cp) == Character.SURROGATE
                  || Character.getType(cp) == Character.FORMAT) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    return text.length() > 60 ? out + "...(" + text.length() + " chars)" : out.toString();
  }

  /**
   * A command line, its input, and what it must do: an exit code and an error, or text stored
   * exactly.
   */
  // The arrays go to the process as they are; a case is never compared or hashed.
  @SuppressWarnings("ArrayRecordComponent")
  private record CliCase(
      String label,
      String[] args,
      byte[] stdin,
      int exitCode,
      String errorFragment,
      String sentText) {
    static CliCase refused(String label, int exitCode, String errorFragment, String... args) {
      return new CliCase(label, args, null, exitCode, errorFragment, null);
    }

    static CliCase withStdin(
        String label, byte[] stdin, int exitCode, String errorFragment, String... args) {
      return new CliCase(label, args, stdin, exitCode, errorFragment, null);
    }

    static CliCase sent(String label, String text, int exitCode, String... args) {
      return new CliCase(label, args, null, exitCode, null, text);
    }

    static CliCase sentFromStdin(String label, String text, int exitCode, String... args) {
      return new CliCase(label, args, text.getBytes(StandardCharsets.UTF_8), exitCode, null, text);
    }
  }
}
