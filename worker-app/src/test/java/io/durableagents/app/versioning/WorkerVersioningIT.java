package io.durableagents.app.versioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.TaskQueueType;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.history.v1.WorkflowTaskCompletedEventAttributes;
import io.temporal.api.taskqueue.v1.TaskQueue;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import io.temporal.api.workflowservice.v1.DescribeTaskQueueRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkerDeploymentRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deploy of a new worker version under long-lived sessions, on the real Temporal server (the
 * CLI's dev server, worker versioning switched on by dynamic config) with two real {@code agents
 * worker --deployment D --build-id v1|v2} processes. Each version plays its own model script, so a
 * run's text names the version whose worker ran its model turns; the workflow histories say which
 * version completed each workflow task.
 *
 * <ul>
 *   <li>A session awaiting an approval when v2 becomes current finishes its run on v1 (pinned),
 *       then continues as new onto v2 as soon as it is idle; its next run is v2's.
 *   <li>An idle session stays on v1 until its next message wakes it: that workflow task continues
 *       as new onto v2 with the message, which v2's run answers (nothing lost, nothing doubled).
 *   <li>An idle session that gets no message is moved by a signal ({@code cancel}, ignored between
 *       runs), as docs/deploys.md tells operators to do before shutting v1 down.
 *   <li>Then no session is left on v1: the server reports the version drained.
 * </ul>
 *
 * <p>The first workflow run of the woken session is written to {@code
 * target/histories/upgrade-on-continue-as-new.json}: the golden history of this hand-over.
 */
class WorkerVersioningIT {
  private static final String DEPLOYMENT = "agents-it";
  private static final String TASK_QUEUE = "versioning-it";
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How long the server may take to propagate routing, move a session or report drainage: seconds
   * when idle, far more on a busy machine; a wait ends as soon as the server is done.
   */
  private static final Duration WAIT = Duration.ofMinutes(3);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String UPGRADE_CHANGE_ID = "upgrade-on-continue-as-new";

  @TempDir(cleanup = CleanupMode.ON_SUCCESS)
  static Path dir;

  private static TemporalDevServer server;
  private static WorkflowServiceStubs service;
  private static WorkflowClient temporal;
  private static AgentsProcesses processes;
  private static AgentClient agents;

  @BeforeAll
  static void startServer() {
    server =
        RealTemporal.start(
            TemporalDevServer.Options.newBuilder(RealTemporal.cli())
                .databaseFile(dir.resolve("temporal.db"))
                .logFile(dir.resolve("temporal-server.log"))
                // Workflow tasks tell pinned runs that a newer version is the target...
                .workerVersioning()
                // ...and suggest continue-as-new for it: the session must not hand over mid-run.
                .dynamicConfig("system.enableSuggestCaNOnNewTargetVersion=true")
                // Report drainage in seconds rather than minutes.
                .dynamicConfig("matching.wv.VersionDrainageStatusRefreshInterval=\"1s\"")
                .dynamicConfig("matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"1s\""));
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
    temporal = WorkflowClient.newInstance(service);
    processes = new AgentsProcesses(dir);
    agents =
        AgentClient.newInstance(
            temporal,
            AgentClientOptions.newBuilder()
                .setTaskQueue(TASK_QUEUE)
                .setProjection(ProjectionReader.open(projectionUrl()))
                .build());
  }

  @AfterAll
  static void stopServer() {
    if (processes != null) {
      processes.close();
    }
    if (service != null) {
      service.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void sessionsFinishTheirRunOnTheOldVersion_thenContinueAsNewOntoTheCurrentOne() throws Exception {
    startWorker("v1");
    setCurrentVersion("v1");

    // Idle on v1 when v2 becomes current.
    RunResult idleFirst = bookAndApprove("idle-session");
    RunResult signalledFirst = bookAndApprove("signalled-session");
    // Awaiting an approval on v1 when v2 becomes current.
    RunResult paused = agents.send("busy-session", "Book a table for two at 19:30.");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    for (String session : List.of("idle-session", "signalled-session", "busy-session")) {
      assertThat(pinnedBuildId(session)).as(session).isEqualTo("v1");
    }
    assertThat(idleFirst.text()).isEqualTo("Booked, says v1.");
    assertThat(signalledFirst.text()).isEqualTo("Booked, says v1.");

    startWorker("v2");
    setCurrentVersion("v2");

    // The paused run goes on where it is pinned: v1 plays its model turn after the approval.
    agents.approve("busy-session", paused.approval().approvalId());
    RunResult busyFirst = agents.awaitRun("busy-session");
    assertThat(busyFirst.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(busyFirst.text()).isEqualTo("Booked, says v1.");
    // Idle now, and told of v2 by the approval's workflow task: it moves without a message.
    awaitRunningOn("busy-session", "v2");
    assertAllWorkflowTasksOn(previousRunHistory("busy-session"), "v1");
    assertContinuedAsNewOntoTheTarget("busy-session");

    // The idle session heard of nothing yet: still on v1, pinned.
    assertThat(pinnedBuildId("idle-session")).isEqualTo("v1");
    RunResult idleSecond = agents.send("idle-session", "And a taxi at 22:00, please.");
    assertThat(idleSecond.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(idleSecond.run()).isEqualTo(2);
    assertThat(idleSecond.text()).isEqualTo("Second answer, from v2.");
    assertThat(pinnedBuildId("idle-session")).isEqualTo("v2");
    assertTheMessageWasKeptOnce(idleSecond, "And a taxi at 22:00, please.");
    List<HistoryEvent> idleOld = previousRunHistory("idle-session");
    assertAllWorkflowTasksOn(idleOld, "v1");
    assertContinuedAsNewOntoTheTarget("idle-session");
    assertThat(idleOld)
        .as("the send was accepted by the v1 run that handed over")
        .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED);
    assertAllWorkflowTasksOn(currentRunHistory("idle-session"), "v2");
    saveGoldenHistory("idle-session");

    // The session that moved while idle answers its next message on v2 too.
    RunResult busySecond = agents.send("busy-session", "And a taxi at 22:00, please.");
    assertThat(busySecond.text()).isEqualTo("Second answer, from v2.");
    assertTheMessageWasKeptOnce(busySecond, "And a taxi at 22:00, please.");
    assertAllWorkflowTasksOn(currentRunHistory("busy-session"), "v2");

    // A session without messages is moved by a signal, so that v1 can drain.
    assertThat(pinnedBuildId("signalled-session")).isEqualTo("v1");
    temporalCli(
        "workflow",
        "signal",
        "--workflow-id",
        "signalled-session",
        "--name",
        "cancel",
        "--input",
        "\"deploy\"");
    awaitRunningOn("signalled-session", "v2");
    assertContinuedAsNewOntoTheTarget("signalled-session");
    assertThat(agents.status("signalled-session").orElseThrow().lastResult().text())
        .isEqualTo("Booked, says v1.");

    await("v1 drained")
        .atMost(WAIT)
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(
            () ->
                assertThat(
                        JSON.readTree(
                                temporalCli(
                                    "worker",
                                    "deployment",
                                    "describe-version",
                                    "--deployment-name",
                                    DEPLOYMENT,
                                    "--build-id",
                                    "v1",
                                    "-o",
                                    "json"))
                            .path("drainageInfo")
                            .path("drainageStatus")
                            .asText()
                            .toLowerCase(Locale.ROOT))
                    .endsWith("drained"));
  }

  /** Starts a session with a gated booking, approves it and waits for its run. */
  private static RunResult bookAndApprove(String session) {
    RunResult paused = agents.send(session, "Book a table for two at 19:30.");
    assertThat(paused.status()).as(session).isEqualTo(RunStatus.AWAITING_APPROVAL);
    agents.approve(session, paused.approval().approvalId());
    RunResult finished = agents.awaitRun(session);
    assertThat(finished.status()).as(session).isEqualTo(RunStatus.FINISHED);
    return finished;
  }

  /** {@code agents worker} of build {@code buildId}, playing that version's script. */
  private static void startWorker(String buildId) throws IOException, InterruptedException {
    Path script = dir.resolve("script-" + buildId + ".json");
    Files.writeString(
        script,
        """
        {"turns": [
          {"text": "Booking.", "toolCalls": [{"name": "book_table",
            "arguments": {"restaurant": "Chez Marcel", "people": 2, "time": "19:30"}}]},
          {"text": "Booked, says %1$s."},
          {"text": "Second answer, from %1$s."}
        ]}
        """
            .formatted(buildId),
        StandardCharsets.UTF_8);
    String name = "worker-" + buildId;
    processes.await(
        processes.start(
            "deployment version",
            name,
            "worker",
            "--temporal",
            server.address(),
            "--task-queue",
            TASK_QUEUE,
            "--projection",
            projectionUrl(),
            "--model",
            "scripted:" + script,
            "--deployment",
            DEPLOYMENT,
            "--build-id",
            buildId),
        name);
  }

  /**
   * Makes {@code buildId} the deployment's current version, as an operator does, once its worker
   * polls; returns when the session task queue routes to it.
   *
   * <p>It asks the task queue rather than waiting for the deployment's routing config update state
   * to leave {@code IN_PROGRESS}: the server can leave that state in progress for good after the
   * task queue already routes to the new version (seen on a busy machine), and routing is what the
   * sessions need.
   */
  private static void setCurrentVersion(String buildId) {
    await("current version " + buildId)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .until(
            () -> {
              temporalCli(
                  "worker",
                  "deployment",
                  "set-current-version",
                  "--deployment-name",
                  DEPLOYMENT,
                  "--build-id",
                  buildId,
                  "--yes");
              return true;
            });
    await("routing to " + buildId)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(deploymentCurrentBuildId())
                  .as("the deployment's current version")
                  .isEqualTo(buildId);
              assertThat(taskQueueCurrentBuildId())
                  .as("the task queue's current version")
                  .isEqualTo(buildId);
            });
  }

  private static String deploymentCurrentBuildId() {
    return service
        .blockingStub()
        .describeWorkerDeployment(
            DescribeWorkerDeploymentRequest.newBuilder()
                .setNamespace("default")
                .setDeploymentName(DEPLOYMENT)
                .build())
        .getWorkerDeploymentInfo()
        .getRoutingConfig()
        .getCurrentDeploymentVersion()
        .getBuildId();
  }

  /** The version the session task queue sends new workflow tasks to, as the server reports it. */
  private static String taskQueueCurrentBuildId() {
    return service
        .blockingStub()
        .describeTaskQueue(
            DescribeTaskQueueRequest.newBuilder()
                .setNamespace("default")
                .setTaskQueue(TaskQueue.newBuilder().setName(TASK_QUEUE))
                .setTaskQueueType(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
                .build())
        .getVersioningInfo()
        .getCurrentDeploymentVersion()
        .getBuildId();
  }

  private static String projectionUrl() {
    return "jdbc:sqlite:" + dir.resolve("projection.db");
  }

  /** The build id the session's open workflow run is pinned to, as the server describes it. */
  private static String pinnedBuildId(String session) {
    WorkflowExecutionVersioningInfo info =
        service
            .blockingStub()
            .describeWorkflowExecution(
                DescribeWorkflowExecutionRequest.newBuilder()
                    .setNamespace("default")
                    .setExecution(WorkflowExecution.newBuilder().setWorkflowId(session))
                    .build())
            .getWorkflowExecutionInfo()
            .getVersioningInfo();
    assertThat(info.getBehavior())
        .as(session)
        .isEqualTo(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
    return info.getDeploymentVersion().getBuildId();
  }

  private static void awaitRunningOn(String session, String buildId) {
    await(session + " on " + buildId)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> pinnedBuildId(session).equals(buildId));
  }

  private static List<HistoryEvent> currentRunHistory(String session) {
    return temporal.fetchHistory(session).getEvents();
  }

  /** The history of the workflow run the session's open one continued from. */
  private static List<HistoryEvent> previousRunHistory(String session) {
    String previous =
        currentRunHistory(session)
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getContinuedExecutionRunId();
    assertThat(previous).as("%s continued from an earlier run", session).isNotEmpty();
    return temporal.fetchHistory(session, previous).getEvents();
  }

  private static void assertAllWorkflowTasksOn(List<HistoryEvent> history, String buildId) {
    List<WorkflowTaskCompletedEventAttributes> tasks = new ArrayList<>();
    for (HistoryEvent event : history) {
      if (event.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        tasks.add(event.getWorkflowTaskCompletedEventAttributes());
      }
    }
    assertThat(tasks).isNotEmpty();
    assertThat(tasks)
        .allSatisfy(
            task -> {
              assertThat(task.getDeploymentVersion().getDeploymentName()).isEqualTo(DEPLOYMENT);
              assertThat(task.getDeploymentVersion().getBuildId()).isEqualTo(buildId);
              assertThat(task.getVersioningBehavior())
                  .isEqualTo(VersioningBehavior.VERSIONING_BEHAVIOR_PINNED);
            });
  }

  /**
   * The session's first workflow run took the upgrade branch (its change id marker) and ended in a
   * continue-as-new, and the open run it started did not inherit the old run's pinned version.
   */
  private static void assertContinuedAsNewOntoTheTarget(String session) {
    List<HistoryEvent> history = previousRunHistory(session);
    HistoryEvent first = history.get(0);
    HistoryEvent last = history.get(history.size() - 1);
    HistoryEvent next = currentRunHistory(session).get(0);
    System.out.println("WorkerVersioningIT " + session + " hand-over: " + last + "\nnext: " + next);
    assertThat(first.getWorkflowExecutionStartedEventAttributes().getContinuedExecutionRunId())
        .as("the first workflow run of %s: no hand-over before the upgrade", session)
        .isEmpty();
    assertThat(history)
        .as("the change id of the upgrade")
        .anyMatch(
            e ->
                e.getEventType() == EventType.EVENT_TYPE_MARKER_RECORDED
                    && e.getMarkerRecordedEventAttributes().toString().contains(UPGRADE_CHANGE_ID));
    assertThat(last.getEventType())
        .isEqualTo(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
    assertThat(next.getWorkflowExecutionStartedEventAttributes().hasInheritedPinnedVersion())
        .as("the next run of %s inherited the pinned version: %s", session, next)
        .isFalse();
  }

  /**
   * The conversation holds the first run's booking, then {@code text} once as the next user turn,
   * answered by v2.
   */
  private static void assertTheMessageWasKeptOnce(RunResult result, String text) {
    List<Message> messages = result.messages();
    assertThat(messages).isNotNull();
    assertThat(messages.stream().filter(m -> text.equals(m.text())).count()).isEqualTo(1);
    int at = -1;
    for (int i = 0; i < messages.size(); i++) {
      if (text.equals(messages.get(i).text())) {
        at = i;
      }
    }
    assertThat(messages.get(at).role()).isEqualTo(Role.USER);
    assertThat(messages.subList(0, at)).anyMatch(m -> "Booked, says v1.".equals(m.text()));
    assertThat(messages.get(messages.size() - 1).text()).isEqualTo("Second answer, from v2.");
  }

  private static void saveGoldenHistory(String session) throws IOException {
    String previous =
        currentRunHistory(session)
            .get(0)
            .getWorkflowExecutionStartedEventAttributes()
            .getContinuedExecutionRunId();
    WorkflowExecutionHistory history = temporal.fetchHistory(session, previous);
    Path out = Path.of("target", "histories", "upgrade-on-continue-as-new.json");
    Files.createDirectories(out.getParent());
    Files.writeString(out, history.toJson(true), StandardCharsets.UTF_8);
  }

  /** Runs the Temporal CLI against the test's server; answers its stdout, fails on an error. */
  private static String temporalCli(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(RealTemporal.cli().toString());
    command.addAll(List.of(args));
    command.addAll(List.of("--address", server.address(), "--namespace", "default"));
    Path out = Files.createTempFile(dir, "temporal-cli", ".out");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!process.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish");
    }
    String output = Files.readString(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError(
          String.join(" ", args) + " exited with " + process.exitValue() + ": " + output);
    }
    return output;
  }
}
