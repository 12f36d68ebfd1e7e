package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Sessions with an end of life, end to end on the real Temporal dev server with an {@code agents
 * worker} process: {@code close} completes the workflow and a later {@code send} starts it again
 * with its transcript under the same id; {@code delete} leaves no session (status exit 4) and no
 * projection rows, or only the history with {@code --keep-history}; a pending approval needs {@code
 * --force}, which settles it as cancelled; unknown sessions are not-found (exit 4); {@code reset}
 * moves a session back to one of its entries, keeps the later ones marked superseded, and a send
 * goes on from the entry's transcript; a reset to a step the session does not have is exit 4 and
 * changes nothing.
 */
class SessionLifecycleIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static TemporalDevServer server;
  private static AgentsProcesses agents;
  private static String projection;
  private static Path noProfiles;

  record Outcome(int exitCode, String out, String err) {
    JsonNode json() throws java.io.IOException {
      return JSON.readTree(out);
    }
  }

  @BeforeAll
  static void startServerAndWorker() throws Exception {
    server = RealTemporal.start(Files.createDirectories(dir.resolve("server")));
    projection = "jdbc:sqlite:" + dir.resolve("projection.db");
    noProfiles = Files.writeString(dir.resolve("no-profiles.toml"), "");
    // The turn played is the number of assistant messages so far: a session's third send asks
    // for the gated book_table.
    Path script =
        Files.writeString(
            dir.resolve("script.json"),
            "{\"turns\": [{\"text\": \"One.\"}, {\"text\": \"Two.\"}, {\"toolCalls\": [{\"name\":"
                + " \"book_table\", \"arguments\": {\"restaurant\": \"Chez Marcel\", \"people\": 2,"
                + " \"time\": \"20:00\"}}]}, {\"text\": \"Booked.\"}]}");
    agents = new AgentsProcesses(dir, Map.of("TEMPORAL_ADDRESS", server.address()));
    agents.startAndAwait(
        "worker polling task queue 'agents' on " + server.address(),
        "worker",
        "--model",
        "scripted:" + script,
        "--projection",
        projection);
  }

  @AfterAll
  static void stop() {
    if (agents != null) {
      agents.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private static Outcome agents(String... args) {
    CommandLine commandLine =
        AgentsMain.commandLine(
            Map.of(
                "TEMPORAL_ADDRESS",
                server.address(),
                "TEMPORAL_CONFIG_FILE",
                noProfiles.toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    return new Outcome(commandLine.execute(args), out.toString(), err.toString());
  }

  private static Outcome ok(String... args) {
    Outcome outcome = agents(args);
    assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isZero();
    return outcome;
  }

  @Test
  void close_thenSend_startsTheSessionAgainUnderItsId_withItsTranscript() throws Exception {
    ok("send", "life-1", "hello", "--projection", projection);

    Outcome closed = ok("close", "life-1");
    assertThat(closed.out()).startsWith("life-1 closed after 1 run (finished)");

    Outcome status = ok("status", "life-1", "--json", "--projection", projection);
    assertThat(status.json().path("lifecycle").asText()).isEqualTo("closed");
    assertThat(ok("status", "life-1").out())
        .startsWith("life-1 (agent concierge): finished · closed");
    try (ProjectionReader reader = ProjectionReader.open(projection)) {
      assertThat(reader.session("life-1").orElseThrow().lifecycle().value()).isEqualTo("closed");
    }
    // Closing a closed session answers as it is.
    assertThat(ok("close", "life-1").out()).startsWith("life-1 closed");

    Outcome again = ok("send", "life-1", "and again", "--json", "--projection", projection);

    assertThat(again.json().path("run").asInt()).isEqualTo(2);
    assertThat(again.json().path("text").asText()).isEqualTo("Two.");
    List<String> texts = again.json().path("messages").findValuesAsText("text");
    assertThat(texts).containsExactly("hello", "One.", "and again", "Two.");
    Outcome open = ok("status", "life-1", "--json", "--projection", projection);
    assertThat(open.json().path("lifecycle").asText()).isEqualTo("open");
    assertThat(open.json().path("run").asInt()).isEqualTo(2);
    try (ProjectionReader reader = ProjectionReader.open(projection)) {
      assertThat(reader.session("life-1").orElseThrow().lifecycle().value()).isEqualTo("open");
    }
  }

  @Test
  void delete_leavesNoSession_andKeepHistoryKeepsOnlyTheHistory() throws Exception {
    ok("send", "del-1", "hello", "--projection", projection);
    ok("send", "del-2", "hello", "--projection", projection);

    Outcome deleted = ok("delete", "del-1");
    assertThat(deleted.out().strip()).isEqualTo("del-1 deleted");
    ok("delete", "del-2", "--keep-history");

    assertNotFound("status", "del-1");
    assertNotFound("status", "del-2");
    try (ProjectionReader reader = ProjectionReader.open(projection)) {
      assertThat(reader.session("del-1")).isEmpty();
      assertThat(reader.history("del-1", 0)).isEmpty();
      assertThat(reader.session("del-2")).isEmpty();
      assertThat(reader.history("del-2", 0)).isNotEmpty();
    }
    assertThat(ok("history", "del-2", "--json", "--projection", projection).json().size())
        .isPositive();
    // Deleting it again: there is nothing left to delete.
    assertNotFound("delete", "del-1");
  }

  @Test
  void aPendingApproval_needsForce_andForceSettlesItAsCancelled() throws Exception {
    ok("send", "gated-1", "one", "--projection", projection);
    ok("send", "gated-1", "two", "--projection", projection);
    Outcome paused = agents("send", "gated-1", "book it", "--json", "--projection", projection);
    assertThat(paused.exitCode()).as(paused.err()).isEqualTo(3);

    Outcome refusedClose = agents("close", "gated-1");
    Outcome refusedDelete = agents("delete", "gated-1");

    String step =
        ok("history", "gated-1", "--json", "--projection", projection)
            .json()
            .get(0)
            .path("step")
            .asText();
    Outcome refusedReset = agents("reset", "gated-1", step, "--projection", projection);

    assertThat(refusedClose.exitCode()).as(refusedClose.err()).isEqualTo(3);
    assertThat(refusedClose.err()).contains("is awaiting approval").contains("force");
    assertThat(refusedDelete.exitCode()).as(refusedDelete.err()).isEqualTo(3);
    assertThat(refusedReset.exitCode()).as(refusedReset.err()).isEqualTo(3);
    // Each refusal names the command that was run with its flag, and the decisions.
    String approvalId = paused.json().path("approval").path("approvalId").asText();
    assertThat(approvalId).as(paused.out()).isNotEmpty();
    assertThat(refusedClose.err())
        .contains("approval " + approvalId + " for tool 'book_table'")
        .contains("'agents approve gated-1 " + approvalId + "'")
        .contains("'agents reject gated-1 " + approvalId + "'")
        .contains("'agents close gated-1 --force'");
    assertThat(refusedDelete.err()).contains("'agents delete gated-1 --force'");
    assertThat(refusedReset.err()).contains("'agents reset gated-1 " + step + " --force'");
    Outcome stillOpen = agents("status", "gated-1", "--json");
    assertThat(stillOpen.exitCode()).isEqualTo(3);
    assertThat(stillOpen.json().path("status").asText()).isEqualTo("awaiting-approval");

    ok("close", "gated-1", "--force");

    try (ProjectionReader reader = ProjectionReader.open(projection)) {
      List<ApprovalRow> approvals =
          reader.approvals(false).stream().filter(a -> a.sessionId().equals("gated-1")).toList();
      assertThat(approvals)
          .singleElement()
          .satisfies(a -> assertThat(a.status()).isEqualTo(ApprovalStatus.CANCELLED));
    }
    // The approval the forced close cancelled is decided already, not unknown; a wait for the
    // closed session's run answers its last run's result, as its status shows it.
    Outcome late = agents("approve", "gated-1", approvalId, "--projection", projection);
    assertThat(late.exitCode()).as(late.out() + late.err()).isEqualTo(1);
    assertThat(late.err())
        .contains("Approval " + approvalId + " of session 'gated-1' is already decided: cancelled");
    Outcome last = agents("send", "gated-1", "", "--json", "--projection", projection);
    assertThat(last.exitCode()).as(last.out() + last.err()).isZero();
    assertThat(last.json().path("status").asText()).isEqualTo("cancelled");
    assertThat(last.json().path("run").asInt())
        .isEqualTo(ok("status", "gated-1", "--json").json().path("run").asInt());
    ok("delete", "gated-1");
    assertNotFound("status", "gated-1");
  }

  @Test
  void status_ofASessionPausedOnAnApproval_showsThePausedRunWithItsMessages() throws Exception {
    ok("send", "paused-1", "one", "--projection", projection);
    ok("send", "paused-1", "two", "--projection", projection);
    Outcome paused = agents("send", "paused-1", "book it", "--json", "--projection", projection);
    assertThat(paused.exitCode()).as(paused.err()).isEqualTo(3);

    Outcome status = agents("status", "paused-1", "--json", "--projection", projection);

    assertThat(status.exitCode()).as(status.err()).isEqualTo(3);
    assertThat(status.err()).isEmpty();
    JsonNode last = status.json().path("lastResult");
    assertThat(last.path("run").asInt()).as(status.out()).isEqualTo(3);
    assertThat(last.path("status").asText()).isEqualTo("awaiting-approval");
    assertThat(last.path("approval").path("approvalId").asText())
        .isEqualTo(paused.json().path("approval").path("approvalId").asText());
    JsonNode messages = last.path("messages");
    assertThat(messages.isArray()).as(status.out()).isTrue();
    assertThat(messages).hasSize(last.path("messageCount").asInt());
    assertThat(messages.findValuesAsText("text"))
        .containsSubsequence("one", "One.", "two", "Two.", "book it");
    assertThat(messages.get(messages.size() - 1).path("toolCalls").get(0).path("name").asText())
        .isEqualTo("book_table");
    Outcome human = agents("status", "paused-1");
    assertThat(human.exitCode()).isEqualTo(3);
    assertThat(human.out()).contains("Last run:");

    ok("close", "paused-1", "--force");
  }

  @Test
  void reset_movesTheSessionBackToAnEntry_keepsTheLaterOnesMarked_andASendGoesOnFromIt()
      throws Exception {
    ok("send", "reset-1", "hello", "--projection", projection);
    ok("send", "reset-1", "more", "--projection", projection);
    JsonNode before = ok("history", "reset-1", "--json", "--projection", projection).json();
    // The newest entry of run 1: its transcript is "hello", "One.".
    int step = newestStepWithMessages(before, 2);
    List<Integer> later = stepsAfter(before, step);
    assertThat(later).isNotEmpty();

    Outcome reset = ok("reset", "reset-1", String.valueOf(step), "--projection", projection);

    assertThat(reset.out()).startsWith("reset-1 reset to step " + step + " (finished, 2 messages)");
    JsonNode status = ok("status", "reset-1", "--json", "--projection", projection).json();
    assertThat(status.path("resetTo").asInt()).isEqualTo(step);
    assertThat(status.path("lifecycle").asText()).isEqualTo("open");
    assertThat(status.path("messageCount").asInt()).isEqualTo(2);
    assertThat(ok("status", "reset-1").out()).contains("· reset to step " + step);
    try (ProjectionReader reader = ProjectionReader.open(projection)) {
      assertThat(reader.session("reset-1").orElseThrow().resetTo()).isEqualTo(step);
    }

    // The scripted model plays the turn named by the assistant messages so far: after the reset
    // the transcript has one, so the next send is answered "Two." again, after "One.".
    Outcome next = ok("send", "reset-1", "again", "--json", "--projection", projection);
    assertThat(next.json().path("text").asText()).isEqualTo("Two.");
    assertThat(next.json().path("messages").findValuesAsText("text"))
        .containsExactly("hello", "One.", "again", "Two.");

    JsonNode after = ok("history", "reset-1", "--json", "--projection", projection).json();
    for (JsonNode entry : after) {
      int entryStep = entry.path("step").asInt();
      List<String> texts = entry.path("checkpoint").path("messages").findValuesAsText("text");
      if (later.contains(entryStep)) {
        // Superseded, with the transcript it had.
        assertThat(entry.path("supersededBy").asText())
            .startsWith("reset to step " + step + " at ");
        assertThat(texts).contains("more").doesNotContain("again");
      } else {
        assertThat(
                entry.path("supersededBy").isMissingNode() || entry.path("supersededBy").isNull())
            .as(entry.toString())
            .isTrue();
        assertThat(texts).doesNotContain("more");
      }
    }
    assertThat(stepsAfter(after, later.get(later.size() - 1))).isNotEmpty();
    assertThat(ok("history", "reset-1", "--projection", projection).out())
        .contains("superseded by the reset to step " + step + " at ");
  }

  @Test
  void resetToAStepTheSessionDoesNotHave_isNotFound_andChangesNothing() throws Exception {
    ok("send", "reset-2", "hello", "--projection", projection);
    JsonNode status = ok("status", "reset-2", "--json", "--projection", projection).json();
    String history = ok("history", "reset-2", "--json", "--projection", projection).out();

    Outcome missing = agents("reset", "reset-2", "999", "--projection", projection);

    assertThat(missing.exitCode()).as(missing.out() + missing.err()).isEqualTo(4);
    assertThat(missing.err()).contains("no kept history entry at step 999");
    assertThat(ok("status", "reset-2", "--json", "--projection", projection).json())
        .isEqualTo(status);
    assertThat(ok("history", "reset-2", "--json", "--projection", projection).out())
        .isEqualTo(history);
    Outcome unknown = agents("reset", "no-such-session", "1", "--projection", projection);
    assertThat(unknown.exitCode()).as(unknown.out() + unknown.err()).isEqualTo(4);
  }

  @Test
  void aDeleteOrResetOfAClosedSession_onATaskQueueItDidNotRunOn_isRefused_andMovesNothing()
      throws Exception {
    ok("send", "dl-3", "hello", "--projection", projection);
    ok("close", "dl-3");
    int step =
        ok("history", "dl-3", "--json", "--projection", projection)
            .json()
            .get(0)
            .path("step")
            .asInt();

    Outcome delete =
        agents("delete", "dl-3", "--task-queue", "nobody-polls", "--projection", projection);
    Outcome reset =
        agents(
            "reset",
            "dl-3",
            String.valueOf(step),
            "--task-queue",
            "nobody-polls",
            "--projection",
            projection);

    for (Outcome refused : List.of(delete, reset)) {
      assertThat(refused.exitCode()).as(refused.out() + refused.err()).isEqualTo(2);
      assertThat(refused.err())
          .contains("Session 'dl-3' ran on task queue 'agents', not 'nobody-polls'");
    }
    // The session stayed where it was: closed, on its own task queue, and deleted from there.
    assertThat(ok("status", "dl-3", "--json").json().path("lifecycle").asText())
        .isEqualTo("closed");
    ok("delete", "dl-3", "--projection", projection);
    assertThat(agents("status", "dl-3").exitCode()).isEqualTo(4);
  }

  @Test
  void twoResetsAtOnce_oneMayBeRefusedAsOvertaken_andTheSessionGoesOnFromTheOther()
      throws Exception {
    for (int round = 1; round <= 3; round++) {
      String session = "race-reset-" + round;
      JsonNode history = afterTwoRuns(session);
      int first = newestStepWithMessages(history, 2);
      int newest = history.get(0).path("step").asInt();

      List<Outcome> outcomes =
          atOnce(
              List.of("reset", session, String.valueOf(first), "--projection", projection),
              List.of("reset", session, String.valueOf(newest), "--projection", projection));

      for (Outcome outcome : outcomes) {
        // Done, or refused because the other reset came first: never a broken session.
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isIn(0, 2);
        if (outcome.exitCode() == 2) {
          assertThat(outcome.err()).contains("was reset by another request at the same time");
        }
      }
      assertThat(outcomes).anyMatch(outcome -> outcome.exitCode() == 0);
      assertUsable(session);
    }
  }

  @Test
  void aResetAndACloseAtOnce_leaveTheSessionUsable() throws Exception {
    for (int round = 1; round <= 3; round++) {
      String session = "race-close-" + round;
      JsonNode history = afterTwoRuns(session);
      int first = newestStepWithMessages(history, 2);

      List<Outcome> outcomes =
          atOnce(
              List.of("reset", session, String.valueOf(first), "--projection", projection),
              List.of("close", session));

      for (Outcome outcome : outcomes) {
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isIn(0, 2);
      }
      assertUsable(session);
    }
  }

  @Test
  void twoDeletesAtOnce_leaveNoSession_andTheIdStartsAfresh() throws Exception {
    for (int round = 1; round <= 3; round++) {
      String session = "race-delete-" + round;
      ok("send", session, "hello", "--projection", projection);

      List<Outcome> outcomes =
          atOnce(
              List.of("delete", session, "--projection", projection),
              List.of("delete", session, "--projection", projection));

      for (Outcome outcome : outcomes) {
        // Deleted, or nothing left to delete once the other one had.
        assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isIn(0, 4);
      }
      assertThat(outcomes).anyMatch(outcome -> outcome.exitCode() == 0);
      assertThat(agents("status", session).exitCode()).isEqualTo(4);
      JsonNode fresh =
          ok("send", session, "hello again", "--json", "--projection", projection).json();
      assertThat(fresh.path("status").asText()).isEqualTo("finished");
      assertThat(fresh.path("messages").findValuesAsText("text"))
          .containsExactly("hello again", "One.");
    }
  }

  /** Runs "hello" and "more" on a new session {@code session}; answers its history. */
  private static JsonNode afterTwoRuns(String session) throws Exception {
    ok("send", session, "hello", "--projection", projection);
    ok("send", session, "more", "--projection", projection);
    return ok("history", session, "--json", "--projection", projection).json();
  }

  /**
   * The session answers its status and takes a send whose run goes on from the transcript the
   * session stands at (the scripted model answers by the number of assistant messages so far).
   */
  private static void assertUsable(String session) throws Exception {
    JsonNode status = ok("status", session, "--json", "--projection", projection).json();
    int messages = status.path("messageCount").asInt();
    Outcome sent = agents("send", session, "again", "--json", "--projection", projection);
    // Exit 3: a session reset to its newest entry plays the script's third turn, the gated call.
    assertThat(sent.exitCode()).as(sent.out() + sent.err()).isIn(0, 3);
    JsonNode next = sent.json();
    assertThat(next.path("status").asText())
        .as(next.toString())
        .isIn("finished", "awaiting-approval");
    // The send's message follows the transcript the session stood at, and the model answered it.
    assertThat(next.path("messages")).hasSize(messages + 2);
    assertThat(next.path("messages").get(messages).path("text").asText()).isEqualTo("again");
    assertThat(ok("history", session, "--json", "--projection", projection).json()).isNotEmpty();
  }

  /** Runs the two commands at the same moment, each on its own thread, and answers both. */
  private static List<Outcome> atOnce(List<String> a, List<String> b) throws Exception {
    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
    java.util.concurrent.ExecutorService threads =
        java.util.concurrent.Executors.newFixedThreadPool(2);
    try {
      List<java.util.concurrent.Future<Outcome>> runs = new java.util.ArrayList<>();
      for (List<String> command : List.of(a, b)) {
        runs.add(
            threads.submit(
                () -> {
                  start.await();
                  return agents(command.toArray(String[]::new));
                }));
      }
      List<Outcome> outcomes = new java.util.ArrayList<>();
      for (java.util.concurrent.Future<Outcome> run : runs) {
        outcomes.add(run.get());
      }
      return outcomes;
    } finally {
      threads.shutdownNow();
    }
  }

  private static int newestStepWithMessages(JsonNode history, int messages) {
    int step = -1;
    for (JsonNode entry : history) {
      if (entry.path("checkpoint").path("messages").size() == messages) {
        step = Math.max(step, entry.path("step").asInt());
      }
    }
    assertThat(step).as(history.toString()).isNotNegative();
    return step;
  }

  private static List<Integer> stepsAfter(JsonNode history, int step) {
    List<Integer> steps = new java.util.ArrayList<>();
    for (JsonNode entry : history) {
      if (entry.path("step").asInt() > step) {
        steps.add(entry.path("step").asInt());
      }
    }
    java.util.Collections.sort(steps);
    return steps;
  }

  @Test
  void anEmptySend_takesTheAgentTheSessionWasStartedWith_andRefusesAnother() {
    ok("send", "agent-1", "hello", "--projection", projection);

    // As a send of a message with the same --agent is taken, a wait with it is too.
    Outcome same = agents("send", "agent-1", "", "--agent", "concierge");
    Outcome other = agents("send", "agent-1", "", "--agent", "researcher");
    Outcome unknown = agents("send", "agent-none", "", "--agent", "concierge");

    assertThat(same.exitCode()).as(same.out() + same.err()).isZero();
    assertThat(other.exitCode()).as(other.err()).isEqualTo(2);
    assertThat(other.err()).contains("Session 'agent-1' already exists: --agent is taken only");
    assertThat(unknown.exitCode()).as(unknown.err()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("--agent is taken only by the send that starts a session; an empty message");
  }

  @Test
  void theIdOfAConcurrencyKeysLock_isNoSessionId_soNoSessionCanTakeTheLock() throws Exception {
    ok("send", "keyed-1", "hello", "--concurrency-key", "k1", "--projection", projection);

    for (String command : List.of("send", "status")) {
      Outcome lock =
          command.equals("send")
              ? agents("send", "agents-key:k1", "hi")
              : agents("status", "agents-key:k1");

      assertThat(lock.exitCode()).as(lock.out() + lock.err()).isEqualTo(2);
      assertThat(lock.err())
          .contains(
              "Invalid session id 'agents-key:k1': ids starting with 'agents-key:' are reserved"
                  + " for the locks of concurrency keys.");
    }
    // The key's runs are not held up by a session under its lock's id.
    JsonNode next =
        ok(
                "send",
                "keyed-1",
                "again",
                "--concurrency-key",
                "k1",
                "--json",
                "--projection",
                projection)
            .json();
    assertThat(next.path("status").asText()).isEqualTo("finished");
  }

  @Test
  void closeAndDelete_sayWhatTheyWaitFor_whenNoWorkerPolls() throws Exception {
    WorkflowClient client =
        WorkflowClient.newInstance(
            WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build()));
    String idle = "idle-1";
    client
        .newUntypedWorkflowStub(
            "AgentSession",
            WorkflowOptions.newBuilder().setWorkflowId(idle).setTaskQueue("idle").build())
        .start(new SessionStart(idle, null, null));
    try {
      StringWriter closeErr = new StringWriter();
      StringWriter deleteErr = new StringWriter();
      Thread close = inBackground(closeErr, "close", idle, "--task-queue", "idle");
      Thread delete = inBackground(deleteErr, "delete", idle, "--task-queue", "idle");

      await("both hints")
          .atMost(Duration.ofSeconds(60))
          .untilAsserted(
              () -> {
                assertThat(closeErr.toString())
                    .contains(
                        "Still waiting for the close... is a worker polling task queue 'idle'");
                assertThat(deleteErr.toString())
                    .contains(
                        "Still waiting for the delete... is a worker polling task queue 'idle'");
              });
      client.newUntypedWorkflowStub(idle).terminate("test done");
      close.join(Duration.ofSeconds(30).toMillis());
      delete.join(Duration.ofSeconds(30).toMillis());
    } finally {
      client.getWorkflowServiceStubs().shutdownNow();
    }
  }

  /** Runs the command on a daemon thread, printing its stderr to {@code err}. */
  private static Thread inBackground(StringWriter err, String... args) {
    Thread thread =
        new Thread(
            () -> {
              CommandLine commandLine =
                  AgentsMain.commandLine(
                      Map.of(
                          "TEMPORAL_ADDRESS",
                          server.address(),
                          "TEMPORAL_CONFIG_FILE",
                          noProfiles.toString()));
              commandLine.setOut(new PrintWriter(new StringWriter(), true));
              commandLine.setErr(new PrintWriter(err, true));
              commandLine.execute(args);
            });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  @Test
  void closeAndDeleteOfAnUnknownSession_areNotFound() {
    assertNotFound("close", "no-such-session");
    assertNotFound("delete", "no-such-session");
    assertNotFound("status", "no-such-session");
  }

  private static void assertNotFound(String... args) {
    Outcome outcome = agents(args);
    assertThat(outcome.exitCode()).as(outcome.out() + outcome.err()).isEqualTo(4);
    assertThat(outcome.err()).contains(args[1]);
  }
}
