package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.agent.Execution;
import io.durableagents.plugin.SearchAttributeUpserts;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionSearchAttributes;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.sdk.v1.WorkflowMetadata;
import io.temporal.common.SearchAttributes;
import io.temporal.common.converter.DefaultDataConverter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What Temporal's own tools see of a session on the in-memory test server: search attributes,
 * current details and activity summaries, with the attributes registered and without.
 */
class SessionVisibilityTest {
  private static final String PAY_THEN_ANSWER =
      "{'turns':[{'toolCalls':[{'name':'add','arguments':{'a':2,'b':3}},"
          + "{'name':'pay','arguments':{'amount':500}}]},{'text':'paid'},{'text':'again'}]}";

  @TempDir Path dir;

  @ParameterizedTest(name = "{0}")
  @EnumSource(Execution.class)
  void aPausedSession_isAwaitingApproval_thenFinished_andUpsertsOnlyWhatChanged(Execution mode)
      throws Exception {
    try (SessionTestKit kit = new SessionTestKit(dir, Scripts.of(PAY_THEN_ANSWER), 10, mode)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);

      RunResult paused = kit.send("visible", "pay it");

      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      SearchAttributes waiting = attributes(kit, "visible");
      assertThat(waiting.get(SessionSearchAttributes.AGENT_NAME)).isEqualTo("tester");
      assertThat(waiting.get(SessionSearchAttributes.AGENT_STATUS)).isEqualTo("awaiting-approval");
      assertThat(waiting.get(SessionSearchAttributes.PENDING_APPROVALS)).isEqualTo(1L);
      assertThat(waiting.containsKey(SessionSearchAttributes.PARENT_SESSION)).isFalse();
      assertThat(currentDetails(kit, "visible")).isEqualTo("run 1 · awaiting-approval · tool pay");

      kit.session("visible")
          .approve(new Decision(paused.approval().approvalId(), true, "ok", "ops"));
      assertThat(kit.attach("visible").status()).isEqualTo(RunStatus.FINISHED);

      SearchAttributes finished = attributes(kit, "visible");
      assertThat(finished.get(SessionSearchAttributes.AGENT_STATUS)).isEqualTo("finished");
      assertThat(finished.get(SessionSearchAttributes.PENDING_APPROVALS)).isEqualTo(0L);
      assertThat(currentDetails(kit, "visible")).isEqualTo("run 1 · finished");

      assertThat(kit.send("visible", "once more").status()).isEqualTo(RunStatus.FINISHED);
      assertThat(currentDetails(kit, "visible")).isEqualTo("run 2 · finished");
      // running (with the agent and no pending approval), awaiting-approval, running, finished;
      // then running, finished for run 2: each upsert carries only what changed.
      List<HistoryEvent> upserts =
          events(kit, "visible", EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES);
      assertThat(upserts).hasSize(6);
      assertThat(
              upserts
                  .get(0)
                  .getUpsertWorkflowSearchAttributesEventAttributes()
                  .getSearchAttributes()
                  .getIndexedFieldsMap())
          .containsOnlyKeys("AgentName", "AgentStatus", "AgentPendingApprovals");
      assertThat(
              upserts
                  .get(5)
                  .getUpsertWorkflowSearchAttributesEventAttributes()
                  .getSearchAttributes()
                  .getIndexedFieldsMap())
          .containsOnlyKeys("AgentStatus");

      List<String> summaries = summaries(kit, "visible", mode);
      assertThat(summaries).contains("model turn 1", "tool add", "tool pay");
      assertThat(summaries.stream().filter(s -> s.startsWith("model turn")).distinct().count())
          .as("one summary per model turn: %s", summaries)
          .isEqualTo(summaries.stream().filter(s -> s.startsWith("model turn")).count());
      assertThat(String.join(" ", summaries)).doesNotContain("500").doesNotContain("pay it");
    }
  }

  @Test
  void aFork_namesItsParentSession() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'echo','arguments':{'text':'a'}}]},{'text':'one'}]}"),
            10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.ALWAYS);
      assertThat(kit.send("source", "go").status()).isEqualTo(RunStatus.FINISHED);

      // A fork of the last entry has nothing left to run: it settles without resolving its agent.
      RunResult settled = kit.fork("source", 3, ForkPatch.NONE, "source.fork-1");
      RunResult rerun = kit.fork("source", 2, ForkPatch.NONE, "source.fork-2");

      assertThat(settled.status()).isEqualTo(RunStatus.FINISHED);
      assertThat(rerun.status()).isEqualTo(RunStatus.FINISHED);
      for (String fork : List.of("source.fork-1", "source.fork-2")) {
        SearchAttributes forked = attributes(kit, fork);
        assertThat(forked.get(SessionSearchAttributes.PARENT_SESSION)).as(fork).isEqualTo("source");
        assertThat(forked.get(SessionSearchAttributes.AGENT_NAME)).as(fork).isEqualTo("tester");
        assertThat(forked.get(SessionSearchAttributes.AGENT_STATUS)).as(fork).isEqualTo("finished");
      }
      assertThat(attributes(kit, "source").containsKey(SessionSearchAttributes.PARENT_SESSION))
          .isFalse();
    }
  }

  @Test
  void withoutRegisteredAttributes_aSessionRunsWithoutUpserts_andStillShowsItsDetails()
      throws Exception {
    // The default mode asks the server, and the test server cannot say: nothing is upserted.
    try (SessionTestKit kit = new SessionTestKit(dir, Scripts.of(PAY_THEN_ANSWER), 10)) {
      RunResult paused = kit.send("plain", "pay it");
      assertThat(currentDetails(kit, "plain")).isEqualTo("run 1 · awaiting-approval · tool pay");
      kit.session("plain").approve(new Decision(paused.approval().approvalId(), true, "ok", "ops"));

      assertThat(kit.attach("plain").status()).isEqualTo(RunStatus.FINISHED);
      assertThat(events(kit, "plain", EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES))
          .isEmpty();
      assertThat(attributes(kit, "plain").containsKey(SessionSearchAttributes.AGENT_STATUS))
          .isFalse();
    }
  }

  @Test
  void registeredAttributes_butUpsertsTurnedOff_upsertNothing() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(dir, Scripts.of("{'turns':[{'text':'hi'}]}"), 10)) {
      kit.registerSearchAttributes(SearchAttributeUpserts.NEVER);

      assertThat(kit.send("quiet", "hello").status()).isEqualTo(RunStatus.FINISHED);

      assertThat(events(kit, "quiet", EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES))
          .isEmpty();
      assertThat(currentDetails(kit, "quiet")).isEqualTo("run 1 · finished");
    }
  }

  private static SearchAttributes attributes(SessionTestKit kit, String sessionId) {
    return kit.client.newUntypedWorkflowStub(sessionId).describe().getTypedSearchAttributes();
  }

  private static String currentDetails(SessionTestKit kit, String sessionId) {
    return kit.client
        .newUntypedWorkflowStub(sessionId)
        .query("__temporal_workflow_metadata", WorkflowMetadata.class)
        .getCurrentDetails();
  }

  private static List<HistoryEvent> events(SessionTestKit kit, String sessionId, EventType type) {
    return kit.client.fetchHistory(sessionId).getEvents().stream()
        .filter(event -> event.getEventType() == type)
        .toList();
  }

  /**
   * The summaries of the session's activities: on their scheduled events, or local ones' markers.
   */
  private static List<String> summaries(SessionTestKit kit, String sessionId, Execution mode) {
    EventType type =
        mode == Execution.LOCAL_ACTIVITY
            ? EventType.EVENT_TYPE_MARKER_RECORDED
            : EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED;
    return events(kit, sessionId, type).stream()
        .filter(event -> event.getUserMetadata().hasSummary())
        .map(
            event ->
                DefaultDataConverter.STANDARD_INSTANCE.fromPayload(
                    event.getUserMetadata().getSummary(), String.class, String.class))
        .toList();
  }
}
