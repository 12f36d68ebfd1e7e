package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Execution;
import io.durableagents.plugin.SearchAttributeUpserts;
import io.durableagents.testing.TestReplayer;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.AgentSessionWorkflowImpl;
import io.durableagents.workflow.internal.ConcurrencyKeyWorkflowImpl;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.ConcurrencyKeyWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Runs a tool-using session of two runs, fetches its history and replays it with the current
 * workflow code. The sessions upsert their search attributes, as on a namespace that has them. The
 * history is also written to {@code target/histories/}: the golden histories of {@code
 * workflows/src/test/resources/histories/} are taken from there, after a change id and at each
 * release (that directory's README says how).
 */
class ReplayFreshHistoryTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void toolUsingSession_replaysWithoutNonDeterminism(Execution mode) throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'text':'checking','toolCalls':[{'name':'add','arguments':{'a':2,'b':3}},"
                    + "{'name':'nope','arguments':{}},{'name':'echo','arguments':{'text':'hi'}}]},"
                    + "{'text':'five'},{'text':'again'}]}"),
            10,
            mode)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      RunResult first = kit.send("golden-tool-loop", "add two and three");
      RunResult second = kit.send("golden-tool-loop", "once more");
      assertThat(first.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(second.run()).isEqualTo(2);

      replayAndKeep(
          kit,
          "golden-tool-loop",
          "tool-loop-" + mode.name().toLowerCase(Locale.ROOT).replace('_', '-') + ".json");
    }
  }

  @Test
  void aLongToolLoop_holdsItsSaves_andHasTheWorkerWriteThem_replays() throws Exception {
    String addTurn = "{'text':'adding','toolCalls':[{'name':'add','arguments':{'a':1,'b':1}}]},";
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, Scripts.of("{'turns':[" + addTurn.repeat(6) + "{'text':'done'}]}"), 10)) {
      assertThat(kit.send("golden-held", "add six times").text()).isEqualTo("done");

      // The path this golden history stands for: turns held their entries, then one had the
      // worker that held them write them.
      WorkflowExecutionHistory history = kit.client.fetchHistory("golden-held");
      List<Class<?>> kinds = new java.util.ArrayList<>();
      for (HistoryEvent event : history.getEvents()) {
        if (event.hasActivityTaskScheduledEventAttributes()
            && event
                .getActivityTaskScheduledEventAttributes()
                .getActivityType()
                .getName()
                .equals("agents.ModelTurn")) {
          ModelTurnRequest request =
              DefaultDataConverter.STANDARD_INSTANCE.fromPayloads(
                  0,
                  Optional.of(event.getActivityTaskScheduledEventAttributes().getInput()),
                  ModelTurnRequest.class,
                  ModelTurnRequest.class);
          kinds.add(request.saves().getClass());
        }
      }
      assertThat(kinds).contains(TurnSaves.Hold.class, TurnSaves.WriteHeld.class);
      replayAndKeep(kit, "golden-held", "held-saves.json");
    }
  }

  @Test
  void approvalSession_approvedRejectedAndExpired_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}},"
                    + "{'name':'pay','arguments':{'amount':500}},{'name':'pay','arguments':{'amount':600}},"
                    + "{'name':'pay','arguments':{'amount':700}}]},{'text':'settled'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      RunResult first = kit.send("golden-approvals", "pay three");
      kit.session("golden-approvals")
          .approve(new Decision(first.approval().approvalId(), true, "ok", "a"));
      RunResult second = kit.attach("golden-approvals");
      kit.session("golden-approvals")
          .decide(new Decision(second.approval().approvalId(), false, "no", "b"));
      RunResult third = kit.attach("golden-approvals");
      assertThat(third.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      kit.env.sleep(java.time.Duration.ofHours(2));
      assertThat(kit.attach("golden-approvals").status()).isEqualTo(RunStatus.FINISHED);
      replayAndKeep(kit, "golden-approvals", "approvals.json");
    }
  }

  @Test
  void aRunThatWaitsOutAStoreOutage_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'pay','arguments':{'amount':500}}]},"
                    + "{'text':'paid'}]}"),
            agent -> agent.setInstructions("v1").setMaxSteps(10),
            io.temporal.worker.WorkerFactoryOptions.newBuilder(),
            Execution.ACTIVITY,
            io.temporal.worker.WorkerOptions.newBuilder()
                .setStickyQueueScheduleToStartTimeout(Duration.ZERO)
                .build())) {
      kit.failStoreCalls("saveDefinition", 2);
      RunResult paused = kit.send("golden-store-outage", "pay");
      // A fresh worker under another definition reads the run's before the approved call runs,
      // and finds the store down twice (change id tool-store-wait).
      kit.redeploy(agent -> agent.setInstructions("v2").setMaxSteps(10));
      kit.failStoreCalls("definition", 2);
      kit.session("golden-store-outage")
          .approve(new Decision(paused.approval().approvalId(), true, "ok", "a"));
      kit.env.sleep(Duration.ofSeconds(10));
      assertThat(kit.attach("golden-store-outage").status()).isEqualTo(RunStatus.FINISHED);
      assertThat(kit.storeCalls.get("definition")).hasValue(3);
      replayAndKeep(kit, "golden-store-outage", "store-outage.json");
    }
  }

  @Test
  void aForkWithAPatchedResult_andATriggerStartedRun_replay() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},{'text':'one'},"
                    + "{'text':'two'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      assertThat(kit.send("golden-fork-source", "go").text()).isEqualTo("one");
      RunResult forked =
          kit.fork(
              "golden-fork-source",
              2,
              new ForkPatch(
                  null,
                  null,
                  List.of(
                      new ForkPatch.ToolResultPatch("call_0_0", JSON.readTree("{\"echo\":\"b\"}"))),
                  null),
              "golden-fork");
      // The fork starts after the batch and continues the run: its turn is the source's second
      // one, again, this time on the patched result.
      assertThat(forked.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(forked.text()).isEqualTo("one");
      assertThat(kit.send("golden-fork", "continue").text()).isEqualTo("two");
      replayAndKeep(kit, "golden-fork", "fork.json");

      TriggerEnvelope trigger =
          TriggerEnvelope.newBuilder()
              .setId("evt-1")
              .setSource("email")
              .setTrigger("invoice.received")
              .setPayload(JSON.readTree("{\"amount\":120}"))
              .setKeys(JSON.readTree("{\"customerId\":\"c-9\"}"))
              .setThread("thread-42")
              .setReceivedAt(1_700_000_000_000L)
              .setAttachments(List.of())
              .build();
      assertThat(kit.sendTrigger("golden-trigger", trigger).text()).isEqualTo("one");
      replayAndKeep(kit, "golden-trigger", "trigger.json");
    }
  }

  @Test
  void aSessionWhoseToolsKeepBusinessState_andAForkThatReplacesIt_replay() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'remember','arguments':{'a':1}},"
                    + "{'name':'remember','arguments':{'b':2}},{'name':'pay','arguments':{'amount':500}},"
                    + "{'name':'recall','arguments':{}}]},{'text':'kept'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      RunResult paused = kit.send("golden-state", "remember and pay");
      kit.session("golden-state")
          .approve(new Decision(paused.approval().approvalId(), true, "ok", "a"));
      assertThat(kit.attach("golden-state").status()).isEqualTo(RunStatus.FINISHED);
      assertThat(kit.session("golden-state").status().businessState())
          .isEqualTo(JSON.readTree("{\"a\":1,\"b\":2}"));
      replayAndKeep(kit, "golden-state", "business-state.json");

      // Step 2 is the pause: the fork asks for approval again, then its recall sees the patched
      // state.
      RunResult forked =
          kit.fork(
              "golden-state",
              2,
              new ForkPatch(null, JSON.readTree("{\"a\":9}"), null, null),
              "golden-state-fork");
      kit.session("golden-state-fork")
          .approve(new Decision(forked.approval().approvalId(), true, "ok", "a"));
      RunResult rerun = kit.attach("golden-state-fork");
      assertThat(rerun.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(rerun.toolCalls().get(rerun.toolCalls().size() - 1).result())
          .isEqualTo(JSON.readTree("{\"a\":9}"));
      replayAndKeep(kit, "golden-state-fork", "fork-business-state.json");
    }
  }

  @Test
  void cancelledSession_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},{'text':'after'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      java.util.concurrent.CompletableFuture<RunResult> run =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> kit.send("golden-cancel", "go"));
      await("the slow call started")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> kit.effects.containsKey("call_0_0"));
      kit.session("golden-cancel").cancel("test");
      assertThat(run.get(2, java.util.concurrent.TimeUnit.MINUTES).status())
          .isEqualTo(RunStatus.CANCELLED);
      assertThat(kit.send("golden-cancel", "again").status()).isEqualTo(RunStatus.FINISHED);
      replayAndKeep(kit, "golden-cancel", "cancel.json");
    }
  }

  /**
   * A cancel that reaches the session after its send was accepted but before the run started (here
   * while the new session restores from a store that is down; on a busy server, when the workflow
   * task that starts the run timed out and the cancel lands in its retry) cancels that run.
   */
  @Test
  void aCancelThatArrivesBeforeTheRunStarts_cancelsIt_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, Scripts.of("{'turns':[{'text':'first answer'},{'text':'second'}]}"), 10)) {
      String session = "golden-cancel-before-run";
      kit.failStoreCalls("adopt", 1_000);
      java.util.concurrent.CompletableFuture<RunResult> run =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> kit.send(session, "go"));
      await("the restore found the store down")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> kit.storeCalls.containsKey("adopt"));
      kit.session(session).cancel("test");
      kit.failStoreCalls("adopt", 0);

      RunResult cancelled = run.get(2, java.util.concurrent.TimeUnit.MINUTES);
      assertThat(cancelled.status()).isEqualTo(RunStatus.CANCELLED);
      assertThat(cancelled.steps()).isZero();
      // The model was never asked: the next run gets the script's first answer.
      assertThat(kit.send(session, "again").text()).isEqualTo("first answer");
      replayAndKeep(kit, session, "cancel-before-run.json");
    }
  }

  @Test
  void aRunQueuedForItsConcurrencyKey_andTheKeysLease_replay() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},{'text':'done'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      ConcurrencyKeyWorkflow lease =
          kit.client.newWorkflowStub(
              ConcurrencyKeyWorkflow.class, ConcurrencyKeyWorkflow.workflowId("customer:42"));
      java.util.concurrent.CompletableFuture<RunResult> holder =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> sendKeyed(kit, "golden-key-holder", "customer:42"));
      await("the first run holds the lease")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .ignoreExceptions()
          .until(() -> lease.leases().placeOf("golden-key-holder", 1) == 0);
      java.util.concurrent.CompletableFuture<RunResult> queued =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> sendKeyed(kit, "golden-key-queued", "customer:42"));
      await("the second run waits for it")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> kit.session("golden-key-queued").status().status() == RunStatus.QUEUED);
      assertThat(holder.get(1, java.util.concurrent.TimeUnit.MINUTES).status())
          .isEqualTo(RunStatus.FINISHED);
      assertThat(queued.get(1, java.util.concurrent.TimeUnit.MINUTES).status())
          .isEqualTo(RunStatus.FINISHED);
      replayAndKeep(kit, "golden-key-queued", "concurrency-key.json");
      await("the lease completes once idle")
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  kit.client
                          .newUntypedWorkflowStub(ConcurrencyKeyWorkflow.workflowId("customer:42"))
                          .describe()
                          .getStatus()
                      == io.temporal.api.enums.v1.WorkflowExecutionStatus
                          .WORKFLOW_EXECUTION_STATUS_COMPLETED);
      WorkflowExecutionHistory leaseHistory =
          kit.client.fetchHistory(ConcurrencyKeyWorkflow.workflowId("customer:42"));
      TestReplayer.replay(leaseHistory, ConcurrencyKeyWorkflowImpl.class);
      Path out = Path.of("target", "histories", "concurrency-key-lease.json");
      Files.createDirectories(out.getParent());
      Files.writeString(out, leaseHistory.toJson(true));
    }
  }

  private static RunResult sendKeyed(SessionTestKit kit, String sessionId, String key) {
    return io.durableagents.testing.SessionUpdates.sendWithStart(
        kit.client,
        SessionTestKit.TASK_QUEUE,
        new SendRequest("go").withConcurrencyKey(key),
        new SessionStart(sessionId, null, null));
  }

  @Test
  void aCancelledRunSentTheSameTextAgain_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'slow','arguments':{'ms':3000}}]},{'text':'after'}]}"),
            10)) {
      java.util.concurrent.CompletableFuture<RunResult> run =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> kit.send("golden-resume", "go"));
      await("the slow call started")
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> kit.effects.containsKey("call_0_0"));
      kit.session("golden-resume").cancel("test");
      assertThat(run.get(2, java.util.concurrent.TimeUnit.MINUTES).status())
          .isEqualTo(RunStatus.CANCELLED);
      RunResult again = kit.send("golden-resume", "go");
      assertThat(again.status()).isEqualTo(RunStatus.FINISHED);
      // The cancelled run resumed: no second run, no second message.
      assertThat(again.run()).isEqualTo(1);
      assertThat(kit.store.readMessages("golden-resume", again.messageCount()))
          .filteredOn(m -> m.role() == io.durableagents.conversation.Role.USER)
          .hasSize(1);
      replayAndKeep(kit, "golden-resume", "cancel-same-text.json");
    }
  }

  @Test
  void aRunEndingInContinueAsNew_replays() throws Exception {
    StringBuilder script = new StringBuilder("{\"turns\":[");
    for (int i = 0; i < 12; i++) {
      script
          .append("{\"toolCalls\":[{\"name\":\"echo\",\"arguments\":{\"text\":\"")
          .append(i)
          .append("\"}}]},");
    }
    script.append("{\"text\":\"done\"}]}");
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, io.durableagents.model.ScriptedModelProvider.fromJson(script.toString()), 50)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      RunResult result = kit.send("golden-can", "go", null, 40);
      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      // The first workflow run of the session ends in continue-as-new.
      String firstRunId =
          kit.client
              .fetchHistory("golden-can")
              .getEvents()
              .get(0)
              .getWorkflowExecutionStartedEventAttributes()
              .getFirstExecutionRunId();
      WorkflowExecutionHistory first = kit.client.fetchHistory("golden-can", firstRunId);
      assertThat(first.getLastEvent().getEventType())
          .isEqualTo(
              io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
      TestReplayer.replay(first, AgentSessionWorkflowImpl.class);
      Path out = Path.of("target", "histories", "continue-as-new.json");
      Files.createDirectories(out.getParent());
      Files.writeString(out, first.toJson(true));
    }
  }

  /** A send taken in the task where the session must continue as new: its input is saved first. */
  @Test
  void aRunThatContinuesAsNewBeforeItsFirstTurn_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'first'},{'text':'second'}]}"), 10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      int eventLimit = 150;
      assertThat(kit.send("golden-can-input", "one", null, eventLimit).text()).isEqualTo("first");
      kit.worker.suspendPolling();
      for (int i = 0; i < 6; i++) {
        kit.session("golden-can-input")
            .decide(new Decision("no-such-approval", true, null, "absorb a poll"));
        Thread.sleep(200);
      }
      long events = kit.client.fetchHistory("golden-can-input").getEvents().size();
      for (long i = events; i <= eventLimit; i++) {
        kit.session("golden-can-input")
            .decide(new Decision("no-such-approval", true, null, "grow"));
      }
      java.util.concurrent.CompletableFuture<RunResult> second =
          java.util.concurrent.CompletableFuture.supplyAsync(
              () -> kit.send("golden-can-input", "two"));
      Thread.sleep(500);
      kit.worker.resumePolling();
      assertThat(second.get(1, java.util.concurrent.TimeUnit.MINUTES).text()).isEqualTo("second");
      String firstRunId =
          kit.client
              .fetchHistory("golden-can-input")
              .getEvents()
              .get(0)
              .getWorkflowExecutionStartedEventAttributes()
              .getFirstExecutionRunId();
      WorkflowExecutionHistory first = kit.client.fetchHistory("golden-can-input", firstRunId);
      assertThat(first.getLastEvent().getEventType())
          .isEqualTo(
              io.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW);
      TestReplayer.replay(first, AgentSessionWorkflowImpl.class);
      Path out = Path.of("target", "histories", "continue-as-new-input.json");
      Files.createDirectories(out.getParent());
      Files.writeString(out, first.toJson(true));
    }
  }

  @Test
  void aClosedSession_andItsStartAgain_replay() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'one'},{'text':'two'}]}"), 10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      kit.send("golden-close", "hello");
      kit.session("golden-close")
          .close(io.durableagents.workflow.internal.wire.CloseRequest.close(false));
      replayAndKeep(kit, "golden-close", "close.json");
      assertThat(kit.send("golden-close", "again").run()).isEqualTo(2);
      replayAndKeep(kit, "golden-close", "close-restart.json");
    }
  }

  @Test
  void aSessionResetToAnEarlierEntry_andSentTo_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, Scripts.of("{'turns':[{'text':'one'},{'text':'two'},{'text':'three'}]}"), 10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      kit.send("golden-reset", "hello");
      int step = kit.store.session("golden-reset").orElseThrow().lastStep();
      kit.send("golden-reset", "more");
      kit.session("golden-reset")
          .close(io.durableagents.workflow.internal.wire.CloseRequest.close(false));
      assertThat(kit.resetPrepared("golden-reset", step).status().resetTo()).isEqualTo(step);
      assertThat(kit.send("golden-reset", "again").text()).isEqualTo("two");
      replayAndKeep(kit, "golden-reset", "reset.json");
    }
  }

  @Test
  void anIdleSessionThatClosesItself_replays() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of("{'turns':[{'text':'one'},{'text':'two'}]}"),
            agent -> agent.setMaxSteps(10).setIdleTimeout(Duration.ofHours(1)),
            io.temporal.worker.WorkerFactoryOptions.newBuilder())) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      kit.send("golden-idle", "hello");
      kit.send("golden-idle", "still there?");
      kit.env.sleep(Duration.ofMinutes(61));
      assertThat(kit.client.newUntypedWorkflowStub("golden-idle").describe().getStatus())
          .isEqualTo(
              io.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
      replayAndKeep(kit, "golden-idle", "idle-close.json");
    }
  }

  @Test
  void aParentWhoseSubAgentWaitsForAnApprovalDecidedThroughTheParent_replay() throws Exception {
    io.durableagents.agent.Agent weather =
        io.durableagents.agent.Agent.newBuilder("weather")
            .setModelProvider(
                Scripts.of(
                    "{'turns':[{'toolCalls':[{'name':'forecast','arguments':{'city':'Oslo'}}]},"
                        + "{'text':'rain'}]}"))
            .setTools(
                io.durableagents.tools.Tool.newBuilder("forecast")
                    .setDescription("The forecast of a city.")
                    .setApprovalPolicy(io.durableagents.tools.ApprovalPolicy.ALWAYS)
                    .setHandler((args, ctx) -> java.util.Map.of("forecast", "rain"))
                    .build())
            .build();
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'weather','arguments':{'task':'Oslo?'}}]},"
                    + "{'text':'rain in Oslo'}]}"),
            agent -> agent.addSubAgent(weather, "Answers weather questions."),
            io.temporal.worker.WorkerFactoryOptions.newBuilder())) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      RunResult paused = kit.send("golden-parent", "weather in Oslo?");
      String child = paused.approval().sessionId();
      kit.session("golden-parent")
          .approve(new Decision(paused.approval().approvalId(), true, "ok", "a"));
      assertThat(kit.attach("golden-parent").text()).isEqualTo("rain in Oslo");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  kit.client
                      .fetchHistory(child)
                      .getLastEvent()
                      .hasWorkflowExecutionCompletedEventAttributes());
      replayAndKeep(kit, "golden-parent", "sub-agent-parent.json");
      replayAndKeep(kit, child, "sub-agent-child.json");
    }
  }

  private static void replayAndKeep(SessionTestKit kit, String sessionId, String file)
      throws Exception {
    WorkflowExecutionHistory history = kit.client.fetchHistory(sessionId);
    TestReplayer.replay(history, AgentSessionWorkflowImpl.class);
    Path out = Path.of("target", "histories", file);
    Files.createDirectories(out.getParent());
    Files.writeString(out, history.toJson(true));
  }
}
