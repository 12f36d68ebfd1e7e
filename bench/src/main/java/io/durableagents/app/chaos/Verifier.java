package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionRow;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.internal.ModelTurnActivities;
import io.durableagents.workflow.RunResult;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.update.v1.Request;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The guarantees, checked after the storm against what the sessions' transcripts (the projection),
 * the workflow histories and the ledgers say. Every broken one is a violation naming the session,
 * the call or the turn and the evidence; the counts go to the {@link ChaosReport}.
 *
 * <ul>
 *   <li>Every session (and fork) settled {@code finished} in run 1, and its projection row says so.
 *   <li>Exactly one result per call, in call order: the transcript is "go", then the script's three
 *       turns, each tool-calling turn followed at once by one result per call, in order, none an
 *       error; a fork's first five messages are its source's.
 *   <li>No effect repeated except work in flight on a killed worker: each call that ran has its
 *       effect in the tool ledger, all of one activity (never scheduled again), each attempt
 *       started once, none after the recorded one; every effect beyond the recorded one is put down
 *       to a cause ({@link Cause}), and one that fits none is a violation. A fork never runs a
 *       copied call.
 *   <li>No recorded model turn generated again: {@link ModelTurnActivities}' rule on the history,
 *       every model ledger line belonging to its step's activities, the completed activity one that
 *       generated; extra generations put down to causes like effects.
 *   <li>No approval lost or decided twice: a gated session has exactly one approval, approved under
 *       the identity of the channel that decided it, one the driver decided, accepted by exactly
 *       one {@code approve} update in the history; other sessions and forks have none.
 * </ul>
 */
final class Verifier {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The calls of each tool-calling turn of the script, by name, in call order. */
  static final List<List<String>> SCRIPTED_CALLS =
      List.of(
          List.of(LedgerTools.A, LedgerTools.B, LedgerTools.C),
          List.of(LedgerTools.A, LedgerTools.C));

  /** Messages up to the first batch's results: what a fork copies from its source. */
  static final int FIRST_BATCH_MESSAGES = 5;

  /** A completion reported this long after the attempt's effect may still be lost by a kill. */
  private static final long REPORT_GRACE_MILLIS = 2_000;

  /** Why an effect (or a generation) happened more than once. */
  enum Cause {
    /** Written by a worker that was killed later: the attempt was in flight when it died. */
    WORKER_KILL,
    /** In flight while the Temporal server was down: its completion could not be recorded. */
    SERVER_RESTART,
    /** In flight while PostgreSQL was down. */
    POSTGRES_OUTAGE,
    /** A model turn failed {@code held_saves_unknown} on a worker without the held entries. */
    HELD_SAVES_RESEND,
    /**
     * A violation: the server timed out an attempt of a worker that was never killed, outside every
     * server and database outage (the worker was stalled past the timeout), and the call ran again.
     */
    LIVE_WORKER_TIMEOUT,
    /** A violation: none of these. */
    UNEXPLAINED
  }

  private final Timeline timeline;
  private final Set<Long> killed;
  private final ProjectionReader projection;
  private final String consoleIdentity;
  final List<String> violations = new ArrayList<>();
  final Map<Cause, Integer> duplicateEffects = new TreeMap<>();
  final Map<Cause, Integer> duplicateGenerations = new TreeMap<>();
  int toolCalls;
  int effects;
  int generations;
  int resentModelTurns;
  int approvals;
  int alreadyDecidedAnswers;

  /**
   * What the faults cost, from the histories: workflow tasks timed out (by timeout type) or failed
   * (by the failure's first words), activity attempts retried (by the last failure).
   */
  final Map<String, Integer> historyCosts = new TreeMap<>();

  Verifier(Timeline timeline, ProjectionReader projection, String consoleIdentity) {
    this.timeline = timeline;
    this.killed = timeline.killedWorkers();
    this.projection = projection;
    this.consoleIdentity = consoleIdentity;
  }

  /** Checks every session of {@code sessions} (forks included) with the ledgers' lines. */
  void verify(
      List<SessionRecord> sessions,
      Map<String, List<HistoryEvent>> histories,
      List<JsonNode> toolLines,
      List<JsonNode> modelLines) {
    Map<String, List<JsonNode>> toolsByCall = new TreeMap<>();
    for (JsonNode line : toolLines) {
      toolsByCall
          .computeIfAbsent(
              key(line.path("sessionId").asText(), line.path("toolCallId").asText()),
              k -> new ArrayList<>())
          .add(line);
    }
    Map<String, List<JsonNode>> modelByTurn = new TreeMap<>();
    for (JsonNode line : modelLines) {
      modelByTurn
          .computeIfAbsent(
              turnKey(line.path("sessionId").asText(), line.path("turn").asInt(-1)),
              k -> new ArrayList<>())
          .add(line);
    }
    Map<String, SessionRecord> byId = new LinkedHashMap<>();
    for (SessionRecord session : sessions) {
      byId.put(session.id, session);
    }
    Set<String> knownCalls = new TreeSet<>();
    Set<String> knownTurns = new TreeSet<>();
    for (SessionRecord session : sessions) {
      if (!settled(session)) {
        continue;
      }
      List<Message> messages = projection.messages(session.id, -1);
      Map<String, ToolCall> calls = new LinkedHashMap<>();
      Map<String, JsonNode> results = new LinkedHashMap<>();
      checkTranscript(session, messages, calls, results);
      if (session.isFork()) {
        checkCopied(session, byId.get(session.forkOf), messages);
      }
      List<HistoryEvent> history = histories.get(session.id);
      countCosts(history);
      Map<String, String> retryReasons = retryReasons(history);
      for (Map.Entry<String, ToolCall> call : calls.entrySet()) {
        knownCalls.add(call.getKey());
        boolean copied = session.isFork() && call.getValue().id().startsWith("call_0_");
        List<JsonNode> lines = toolsByCall.getOrDefault(call.getKey(), List.of());
        if (copied) {
          if (!lines.isEmpty()) {
            violations.add(call.getKey() + ": a result the fork copied was run again: " + lines);
          }
          continue;
        }
        toolCalls++;
        checkCall(call.getKey(), call.getValue(), results.get(call.getKey()), lines, retryReasons);
      }
      ModelTurnActivities turns = ModelTurnActivities.of(history);
      checkModel(session, turns, modelByTurn, knownTurns, retryReasons);
      checkApprovals(session, history);
    }
    toolsByCall.forEach(
        (key, lines) -> {
          if (!knownCalls.contains(key) && settledSession(byId, lines)) {
            violations.add(key + ": ledger lines of a call in no transcript: " + lines);
          }
        });
    modelByTurn.forEach(
        (key, lines) -> {
          if (!knownTurns.contains(key) && settledSession(byId, lines)) {
            violations.add(key + ": model ledger lines of a turn no transcript has: " + lines);
          }
        });
  }

  /** Sessions that never settled, each a violation naming where its driver was. */
  boolean settled(SessionRecord session) {
    RunResult result = session.result;
    if (session.failure != null || result == null) {
      violations.add(
          session.id
              + ": did not settle: "
              + (session.failure != null ? session.failure : "no result, at " + session.lastStep));
      return false;
    }
    if (!RunStatus.FINISHED.equals(result.status()) || result.run() != 1) {
      violations.add(
          session.id
              + ": settled as run "
              + result.run()
              + " "
              + result.status()
              + " ("
              + result.finishReason()
              + ", error "
              + result.error()
              + "), expected run 1 finished");
    }
    Optional<SessionRow> row = projection.session(session.id);
    if (row.isEmpty() || !RunStatus.FINISHED.equals(row.get().status())) {
      violations.add(session.id + ": projection row is " + row + ", expected status finished");
    }
    return true;
  }

  private static boolean settledSession(Map<String, SessionRecord> byId, List<JsonNode> lines) {
    SessionRecord session = byId.get(lines.get(0).path("sessionId").asText());
    return session == null || (session.failure == null && session.result != null);
  }

  // ---- transcripts ----------------------------------------------------------------------------

  /**
   * "go", then three assistant turns as scripted, each tool-calling turn followed at once by
   * exactly one result per call, in call order, none an error.
   */
  private void checkTranscript(
      SessionRecord session,
      List<Message> messages,
      Map<String, ToolCall> calls,
      Map<String, JsonNode> results) {
    List<String> problems = new ArrayList<>();
    long users = messages.stream().filter(m -> m.role() == Role.USER).count();
    long assistants = messages.stream().filter(m -> m.role() == Role.ASSISTANT).count();
    if (messages.isEmpty()
        || messages.get(0).role() != Role.USER
        || !"go".equals(messages.get(0).text())) {
      problems.add("does not start with the user message \"go\"");
    }
    if (users != 1) {
      problems.add(users + " user messages, expected 1 (a retried send must not add one)");
    }
    if (assistants != 3) {
      problems.add(assistants + " assistant messages, expected 3 (turns 0, 1, 2)");
    }
    int turn = 0;
    int i = 0;
    while (i < messages.size()) {
      Message message = messages.get(i++);
      if (message.role() == Role.TOOL) {
        problems.add("tool message " + (i - 1) + " (" + message.toolCallId() + ") follows no call");
        continue;
      }
      if (message.role() != Role.ASSISTANT) {
        continue;
      }
      List<String> expected = turn < SCRIPTED_CALLS.size() ? SCRIPTED_CALLS.get(turn) : List.of();
      List<String> names = message.toolCalls().stream().map(ToolCall::name).toList();
      if (!names.equals(expected)) {
        problems.add("turn " + turn + " calls " + names + ", expected " + expected);
      }
      if (turn == 2 && !"done".equals(message.text())) {
        problems.add("turn 2 says \"" + message.text() + "\", expected \"done\"");
      }
      for (ToolCall call : message.toolCalls()) {
        String key = key(session.id, call.id());
        if (calls.put(key, call) != null) {
          problems.add("call id " + call.id() + " appears twice");
        }
        Message next = i < messages.size() ? messages.get(i) : null;
        if (next == null || next.role() != Role.TOOL || !call.id().equals(next.toolCallId())) {
          problems.add(
              "call "
                  + call.id()
                  + " of turn "
                  + turn
                  + " is not followed by its result (got "
                  + (next == null ? "nothing" : next.role() + " " + next.toolCallId())
                  + ")");
          continue;
        }
        i++;
        JsonNode result = next.result();
        results.put(key, result);
        if (result == null || result.has("error")) {
          problems.add("call " + call.id() + " (" + call.name() + ") has the error " + result);
        } else if (!call.name().equals(result.path("tool").asText())) {
          problems.add("call " + call.id() + " has another tool's result: " + result);
        }
      }
      turn++;
    }
    for (String problem : problems) {
      violations.add(session.id + ": " + problem);
    }
    if (!problems.isEmpty()) {
      violations.add(session.id + ": transcript " + messages);
    }
  }

  /** A fork starts with its source's messages up to the entry it was forked from. */
  private void checkCopied(SessionRecord fork, SessionRecord source, List<Message> messages) {
    List<Message> from = projection.messages(source.id, -1);
    int n = FIRST_BATCH_MESSAGES;
    if (messages.size() < n
        || from.size() < n
        || !messages.subList(0, n).equals(from.subList(0, n))) {
      violations.add(
          fork.id
              + ": its first "
              + n
              + " messages are not those of "
              + source.id
              + " at step "
              + fork.fromStep
              + ": "
              + messages.subList(0, Math.min(n, messages.size()))
              + " vs "
              + from.subList(0, Math.min(n, from.size())));
    }
  }

  // ---- effects --------------------------------------------------------------------------------

  private void checkCall(
      String key,
      ToolCall call,
      JsonNode result,
      List<JsonNode> lines,
      Map<String, String> retryReasons) {
    List<JsonNode> ends = phase(lines, "end");
    effects += ends.size();
    if (ends.isEmpty()) {
      violations.add(key + ": recorded in the transcript but no effect in the ledger: " + lines);
      return;
    }
    for (JsonNode line : lines) {
      if (!call.name().equals(line.path("tool").asText())) {
        violations.add(key + ": ledger line of another tool than " + call.name() + ": " + line);
      }
    }
    Set<String> activities = new TreeSet<>();
    lines.forEach(line -> activities.add(line.path("activityId").asText()));
    if (activities.size() > 1) {
      violations.add(
          key + ": ran as " + activities.size() + " activities " + activities + ": " + lines);
    }
    Map<String, Integer> starts = new TreeMap<>();
    for (JsonNode line : phase(lines, "start")) {
      starts.merge(
          line.path("activityId").asText() + " attempt " + line.path("attempt").asInt(),
          1,
          Integer::sum);
    }
    starts.forEach(
        (attempt, count) -> {
          if (count > 1) {
            violations.add(key + ": " + attempt + " started " + count + " times: " + lines);
          }
        });
    if (result == null || !result.has("attempt") || !result.has("pid")) {
      return;
    }
    int attempt = result.path("attempt").asInt();
    long pid = result.path("pid").asLong();
    int recorded = -1;
    for (int i = 0; i < ends.size(); i++) {
      JsonNode end = ends.get(i);
      if (end.path("attempt").asInt() == attempt && end.path("pid").asLong() == pid) {
        recorded = i;
      }
    }
    if (recorded < 0) {
      violations.add(key + ": recorded result " + result + " matches no effect: " + lines);
    }
    List<JsonNode> later =
        lines.stream().filter(line -> line.path("attempt").asInt() > attempt).toList();
    if (!later.isEmpty()) {
      violations.add(key + ": attempts after the recorded attempt " + attempt + ": " + later);
    }
    for (int i = 0; i < ends.size(); i++) {
      JsonNode end = ends.get(i);
      if (i != recorded) {
        String retried = retryReasons.get(end.path("activityId").asText());
        Cause cause = cause(end, lines, retried);
        duplicateEffects.merge(cause, 1, Integer::sum);
        if (cause == Cause.UNEXPLAINED || cause == Cause.LIVE_WORKER_TIMEOUT) {
          violations.add(
              key
                  + ": effect repeated ("
                  + cause
                  + ") by a worker that was never killed, outside every server and database"
                  + " outage: "
                  + end
                  + " (recorded: attempt "
                  + attempt
                  + " on pid "
                  + pid
                  + "; the history: "
                  + retried
                  + "); all lines: "
                  + lines);
        }
      }
    }
  }

  /**
   * Why the unrecorded effect (or generation) {@code end} happened: its worker was killed later; or
   * its attempt was in flight (from its start to its end plus the time to report it) while the
   * Temporal server or PostgreSQL was down.
   */
  private Cause cause(JsonNode end, List<JsonNode> lines, String retried) {
    if (killed.contains(end.path("pid").asLong())) {
      return Cause.WORKER_KILL;
    }
    long from = end.path("ts").asLong();
    String attempt = Recovery.attemptKey(end);
    for (JsonNode line : lines) {
      if ("start".equals(line.path("phase").asText())
          && attempt.equals(Recovery.attemptKey(line))) {
        from = line.path("ts").asLong();
      }
    }
    long to = end.path("ts").asLong() + REPORT_GRACE_MILLIS;
    for (Timeline.Fault fault : timeline.faults(Timeline.Kind.SERVER_KILL)) {
      if (fault.overlaps(from, to)) {
        return Cause.SERVER_RESTART;
      }
    }
    for (Timeline.Fault fault : timeline.faults(Timeline.Kind.POSTGRES_OUTAGE)) {
      if (fault.overlaps(from, to)) {
        return Cause.POSTGRES_OUTAGE;
      }
    }
    return retried != null && retried.toLowerCase(Locale.ROOT).contains("timeout")
        ? Cause.LIVE_WORKER_TIMEOUT
        : Cause.UNEXPLAINED;
  }

  /**
   * Activity id to why the history's last recorded attempt of it was not its first ({@code attempt
   * 2 after: activity StartToClose timeout}), for the activities that were retried.
   */
  private static Map<String, String> retryReasons(List<HistoryEvent> history) {
    Map<Long, String> scheduled = new HashMap<>();
    Map<String, String> reasons = new HashMap<>();
    for (HistoryEvent event : history) {
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        scheduled.put(
            event.getEventId(), event.getActivityTaskScheduledEventAttributes().getActivityId());
      } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        var started = event.getActivityTaskStartedEventAttributes();
        if (started.getAttempt() > 1 && started.hasLastFailure()) {
          reasons.put(
              scheduled.get(started.getScheduledEventId()),
              "attempt "
                  + started.getAttempt()
                  + " after: "
                  + started.getLastFailure().getMessage());
        }
      }
    }
    return reasons;
  }

  // ---- model turns ----------------------------------------------------------------------------

  private void checkModel(
      SessionRecord session,
      ModelTurnActivities history,
      Map<String, List<JsonNode>> modelByTurn,
      Set<String> knownTurns,
      Map<String, String> retryReasons) {
    history.violations().forEach(violation -> violations.add(session.id + ": " + violation));
    int expectedTurns = session.isFork() ? 2 : 3;
    if (history.completedSteps().size() != expectedTurns) {
      violations.add(
          session.id
              + ": the history records "
              + history.completedSteps().size()
              + " completed model turns, expected "
              + expectedTurns
              + ": "
              + history.entries());
    }
    resentModelTurns +=
        (int)
            history.entries().stream().filter(ModelTurnActivities.Entry::heldSavesUnknown).count();
    for (int turn = session.isFork() ? 1 : 0; turn <= 2; turn++) {
      String key = turnKey(session.id, turn);
      knownTurns.add(key);
      List<JsonNode> lines = modelByTurn.getOrDefault(key, List.of());
      checkTurn(key, lines, history, retryReasons);
    }
    if (session.isFork() && modelByTurn.containsKey(turnKey(session.id, 0))) {
      violations.add(
          session.id
              + ": turn 0, copied from "
              + session.forkOf
              + ", was generated: "
              + modelByTurn.get(turnKey(session.id, 0)));
    }
  }

  /**
   * One turn's ledger lines: all of one step, each of an activity the history schedules for it; the
   * completed activity generated; every other generation has a cause.
   */
  private void checkTurn(
      String key,
      List<JsonNode> lines,
      ModelTurnActivities history,
      Map<String, String> retryReasons) {
    List<JsonNode> ends = phase(lines, "end");
    generations += ends.size();
    if (ends.isEmpty()) {
      violations.add(key + ": in the transcript but never generated: " + lines);
      return;
    }
    Set<Integer> steps = new TreeSet<>();
    lines.forEach(line -> steps.add(line.path("step").asInt()));
    if (steps.size() != 1) {
      violations.add(key + ": ledger lines of " + steps.size() + " steps " + steps + ": " + lines);
      return;
    }
    List<ModelTurnActivities.Entry> activities = history.ofStep(steps.iterator().next());
    Map<String, ModelTurnActivities.Entry> byId = new HashMap<>();
    activities.forEach(activity -> byId.put(activity.activityId(), activity));
    for (JsonNode line : lines) {
      if (!byId.containsKey(line.path("activityId").asText())) {
        violations.add(
            key
                + ": a line of an activity the history does not schedule "
                + activities
                + ": "
                + line);
      }
    }
    ModelTurnActivities.Entry completed =
        activities.stream()
            .filter(activity -> activity.outcome() == ModelTurnActivities.Outcome.COMPLETED)
            .reduce((first, second) -> second)
            .orElse(null);
    int recorded = -1;
    if (completed != null) {
      for (int i = 0; i < ends.size(); i++) {
        JsonNode end = ends.get(i);
        boolean ofCompleted = completed.activityId().equals(end.path("activityId").asText());
        if (ofCompleted
            && (recorded < 0
                || end.path("attempt").asInt() >= ends.get(recorded).path("attempt").asInt())) {
          recorded = i;
        }
      }
      if (recorded < 0) {
        violations.add(
            key + ": the recorded activity " + completed + " generated nothing: " + lines);
      }
    }
    for (int i = 0; i < ends.size(); i++) {
      if (i == recorded) {
        continue;
      }
      JsonNode end = ends.get(i);
      ModelTurnActivities.Entry activity = byId.get(end.path("activityId").asText());
      String retried = retryReasons.get(end.path("activityId").asText());
      Cause cause =
          activity != null && activity.heldSavesUnknown()
              ? Cause.HELD_SAVES_RESEND
              : cause(end, lines, retried);
      duplicateGenerations.merge(cause, 1, Integer::sum);
      if (cause == Cause.UNEXPLAINED || cause == Cause.LIVE_WORKER_TIMEOUT) {
        violations.add(
            key
                + ": generated again ("
                + cause
                + ") by a worker that was never killed, outside every server and database"
                + " outage: "
                + end
                + " (the history: "
                + retried
                + "); all lines: "
                + lines);
      }
    }
  }

  // ---- approvals ------------------------------------------------------------------------------

  private void checkApprovals(SessionRecord session, List<HistoryEvent> history) {
    Map<String, Integer> accepted = acceptedDecisions(session.id, history);
    List<ApprovalRow> rows = projection.approvals(session.id, false);
    if (!session.gated() || session.isFork()) {
      if (!rows.isEmpty() || !accepted.isEmpty()) {
        violations.add(
            session.id
                + ": expected no approval, found rows "
                + rows
                + " and accepted decisions "
                + accepted);
      }
      return;
    }
    approvals += rows.size();
    if (rows.size() != 1) {
      violations.add(session.id + ": " + rows.size() + " approvals, expected 1: " + rows);
    }
    String identity = session.identity(consoleIdentity);
    for (ApprovalRow row : rows) {
      String id = row.approvalId();
      if (row.status() != ApprovalStatus.APPROVED || !identity.equals(row.decidedBy())) {
        violations.add(
            session.id
                + ": approval "
                + id
                + " is "
                + row.status()
                + " by "
                + row.decidedBy()
                + ", expected approved by "
                + identity
                + ": "
                + row);
      }
      String answer = session.decisions.get(id);
      if (answer == null) {
        violations.add(
            session.id
                + ": approval "
                + id
                + " was never decided by the driver, which decided "
                + session.decisions);
      } else if (answer.startsWith("already")) {
        alreadyDecidedAnswers++;
      }
      int times = accepted.getOrDefault(id, 0);
      if (times != 1) {
        violations.add(
            session.id
                + ": approval "
                + id
                + " was decided "
                + times
                + " times according to the history (accepted approve updates "
                + accepted
                + ")");
      }
    }
    for (String decided : session.decisions.keySet()) {
      if (rows.stream().noneMatch(row -> row.approvalId().equals(decided))) {
        violations.add(
            session.id
                + ": the driver decided approval "
                + decided
                + ", which the projection does not have: lost; rows "
                + rows);
      }
    }
  }

  /** Approval id to the number of {@code approve} updates the history accepted for it. */
  private Map<String, Integer> acceptedDecisions(String session, List<HistoryEvent> history) {
    Map<String, Integer> accepted = new TreeMap<>();
    for (HistoryEvent event : history) {
      if (event.getEventType() != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED) {
        continue;
      }
      Request request =
          event.getWorkflowExecutionUpdateAcceptedEventAttributes().getAcceptedRequest();
      if (!"approve".equals(request.getInput().getName())) {
        continue;
      }
      try {
        JsonNode decision =
            JSON.readTree(request.getInput().getArgs().getPayloads(0).getData().toStringUtf8());
        accepted.merge(decision.path("approvalId").asText(), 1, Integer::sum);
      } catch (IOException | IndexOutOfBoundsException e) {
        violations.add(session + ": an approve update the check cannot read: " + event);
      }
    }
    return accepted;
  }

  // ---- helpers --------------------------------------------------------------------------------

  private void countCosts(List<HistoryEvent> history) {
    for (HistoryEvent event : history) {
      switch (event.getEventType()) {
        case EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT ->
            historyCosts.merge(
                "workflow task timed out ("
                    + event
                        .getWorkflowTaskTimedOutEventAttributes()
                        .getTimeoutType()
                        .name()
                        .replace("TIMEOUT_TYPE_", "")
                    + ")",
                1,
                Integer::sum);
        case EVENT_TYPE_WORKFLOW_TASK_FAILED ->
            historyCosts.merge(
                "workflow task failed ("
                    + event
                        .getWorkflowTaskFailedEventAttributes()
                        .getCause()
                        .name()
                        .replace("WORKFLOW_TASK_FAILED_CAUSE_", "")
                    + ")",
                1,
                Integer::sum);
        case EVENT_TYPE_ACTIVITY_TASK_STARTED -> {
          var started = event.getActivityTaskStartedEventAttributes();
          if (started.getAttempt() > 1) {
            historyCosts.merge(
                "activity retried after: " + shorten(started.getLastFailure().getMessage()),
                started.getAttempt() - 1,
                Integer::sum);
          }
        }
        default -> {}
      }
    }
  }

  private static String shorten(String message) {
    String line = message == null ? "" : message.lines().findFirst().orElse("");
    return line.length() > 60 ? line.substring(0, 60) + "..." : line;
  }

  private static List<JsonNode> phase(List<JsonNode> lines, String phase) {
    return lines.stream().filter(line -> phase.equals(line.path("phase").asText())).toList();
  }

  static String key(String session, String toolCallId) {
    return session + "/" + toolCallId;
  }

  static String turnKey(String session, int turn) {
    return session + " turn " + turn;
  }
}
