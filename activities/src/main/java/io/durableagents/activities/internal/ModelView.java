package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.workflow.internal.MessageSize;
import io.durableagents.workflow.internal.activity.ContextCompaction;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The model's view of a conversation: the stage a model turn passes the transcript through before
 * the provider gets it. Tool results longer than the budget allows are cut; when the estimated
 * request passes the budget's threshold, the budget's policies shorten the view to about half of
 * it.
 *
 * <p>The view is a function of the transcript and the budget alone, and compaction is sticky: the
 * view is worked out as if it had been kept turn by turn, each model turn of the transcript (each
 * assistant message) checking the threshold against the view the turn before it left. So the view
 * of a turn is the one the turns before it saw plus what came since, until the threshold is passed
 * again (a provider's prompt cache keeps working), and a fork or reset of any entry sees that
 * entry's view without anything stored for it.
 *
 * <p>Never shortened: the instructions and tools, the input that started the current run, and the
 * latest model turn with its tool results. A tool call is never separated from its result: {@code
 * clear-tool-results} replaces the result's content and {@code window} leaves out a model turn
 * together with its results.
 */
final class ModelView {
  /** The tokens the note about messages left out costs. */
  private static final long NOTE_TOKENS = 40;

  /**
   * The view of one request.
   *
   * @param messages what the provider gets
   * @param leftOutTurns the model turns (assistant messages) left out of it
   * @param tokens the estimated tokens of the request
   * @param wholeTokens the estimated tokens of the request with the whole conversation
   * @param clearedResults the tool results the view shows cleared
   * @param leftOutMessages the messages left out of the view
   * @param compactedBy the policies that shortened the view at this turn (null: none did)
   */
  record View(
      List<Message> messages,
      int leftOutTurns,
      long tokens,
      long wholeTokens,
      int clearedResults,
      int leftOutMessages,
      String compactedBy) {

    /** This turn's compaction as its step records it, for {@code reason}; null when none. */
    ContextCompaction compaction(String reason) {
      return compactedBy == null
          ? null
          : new ContextCompaction(
              compactedBy, clearedResults, leftOutMessages, wholeTokens, tokens, reason);
    }
  }

  private final List<Message> messages;
  private final ContextBudget budget;
  private final long inputBudget;
  private final double scale;

  private final Message[] shown;
  private final long[] tokens;
  private final long[] clearedTokens;
  private final boolean[] cleared;
  private final boolean[] leftOut;
  private final long fixed;

  private long sum;
  private int clearAt;
  private int leaveAt;
  private boolean anyLeftOut;

  /**
   * @param fixedTokens the estimated tokens of the instructions and tool definitions
   * @param inputBudget the tokens the request may take (0: unknown, the view is never compacted)
   * @param scale what the estimates are multiplied by, as providers' reports corrected them
   * @param estimates the figures of the messages, kept from turn to turn
   */
  private ModelView(
      List<Message> messages,
      long fixedTokens,
      ContextBudget budget,
      long inputBudget,
      double scale,
      MessageEstimates estimates) {
    this.messages = messages;
    this.budget = budget;
    this.inputBudget = inputBudget;
    this.scale = scale;
    int n = messages.size();
    shown = new Message[n];
    tokens = new long[n];
    clearedTokens = new long[n];
    cleared = new boolean[n];
    leftOut = new boolean[n];
    int maxChars = budget.resultChars();
    for (int i = 0; i < n; i++) {
      MessageEstimates.Estimate estimate = estimates.of(messages.get(i), maxChars);
      shown[i] = estimate.shown();
      tokens[i] = scaled(estimate.tokens());
      clearedTokens[i] = scaled(estimate.clearedTokens());
    }
    fixed = scaled(fixedTokens);
  }

  /**
   * The view of {@code messages} (the whole conversation, stored results read back) for a request
   * whose instructions and tools take {@code fixedTokens}.
   */
  static View of(
      List<Message> messages,
      long fixedTokens,
      ContextBudget budget,
      long inputBudget,
      double scale,
      MessageEstimates estimates) {
    return new ModelView(messages, fixedTokens, budget, inputBudget, scale, estimates).build();
  }

  private long scaled(long estimate) {
    return (long) Math.ceil(estimate * scale);
  }

  private View build() {
    int n = messages.size();
    boolean compacts = inputBudget > 0 && !budget.policies().isEmpty();
    long threshold = (long) (budget.threshold() * inputBudget);
    long target = (long) (ContextBudget.TARGET * inputBudget);
    long whole = fixed;
    int runStart = 0;
    boolean newRun = true;
    int latestTurn = -1;
    String compactedBy = null;
    for (int i = 0; i <= n; i++) {
      // A model turn was sent with the messages before i: where the threshold was checked.
      boolean turnPoint = i == n || messages.get(i).role() == Role.ASSISTANT;
      if (turnPoint && compacts && fixed + sum > threshold) {
        Set<String> applied = compact(target, runStart, latestTurn);
        if (i == n && !applied.isEmpty()) {
          compactedBy = String.join(", ", applied);
        }
      }
      if (i == n) {
        break;
      }
      Message message = messages.get(i);
      if (message.role() == Role.USER && newRun) {
        runStart = i;
        newRun = false;
      } else if (message.role() == Role.ASSISTANT) {
        latestTurn = i;
        newRun = message.toolCalls().isEmpty();
      }
      sum += tokens[i];
      whole += tokens[i];
    }
    return view(whole, compactedBy);
  }

  /**
   * Applies the policies in order until the view is within {@code target}: never the run's input at
   * {@code runStart}, nor the model turn at {@code latestTurn} and its results. Returns the labels
   * of the policies that changed the view.
   */
  private Set<String> compact(long target, int runStart, int latestTurn) {
    Set<String> applied = new LinkedHashSet<>();
    for (CompactionPolicy policy : budget.policies()) {
      if (fixed + sum <= target) {
        break;
      }
      boolean changed =
          switch (policy) {
            case CLEAR_TOOL_RESULTS -> clearResults(target, latestTurn);
            case WINDOW -> leaveOut(target, runStart, latestTurn);
          };
      if (changed) {
        applied.add(policy.label());
      }
    }
    return applied;
  }

  private boolean clearResults(long target, int latestTurn) {
    boolean changed = false;
    while (fixed + sum > target && clearAt < latestTurn) {
      int i = clearAt++;
      if (messages.get(i).role() == Role.TOOL && !leftOut[i] && !cleared[i]) {
        cleared[i] = true;
        sum -= tokens[i] - clearedTokens[i];
        changed = true;
      }
    }
    return changed;
  }

  private boolean leaveOut(long target, int runStart, int latestTurn) {
    boolean changed = false;
    while (fixed + sum > target && leaveAt < latestTurn) {
      int start = leaveAt;
      int end = unitEnd(start, runStart, latestTurn);
      leaveAt = end;
      if (start == runStart || leftOut[start]) {
        continue;
      }
      for (int i = start; i < end; i++) {
        leftOut[i] = true;
        sum -= cleared[i] ? clearedTokens[i] : tokens[i];
      }
      if (!anyLeftOut) {
        anyLeftOut = true;
        sum += NOTE_TOKENS;
      }
      changed = true;
    }
    return changed;
  }

  private View view(long wholeTokens, String compactedBy) {
    List<Message> view = new ArrayList<>(messages.size());
    int leftOutTurns = 0;
    int leftOutMessages = 0;
    int clearedResults = 0;
    for (int i = 0; i < messages.size(); i++) {
      if (cleared[i] && !leftOut[i]) {
        clearedResults++;
      }
      if (leftOut[i]) {
        leftOutMessages++;
        if (messages.get(i).role() == Role.ASSISTANT) {
          leftOutTurns++;
        }
      } else {
        view.add(cleared[i] ? cleared(messages.get(i)) : shown[i]);
      }
    }
    if (leftOutMessages > 0) {
      String note =
          "[Note: "
              + leftOutMessages
              + " earlier messages of this conversation are left out of this view to fit the"
              + " model's context window.]";
      Message first = view.isEmpty() ? null : view.get(0);
      if (first != null && first.role() == Role.USER) {
        view.set(
            0,
            new Message(
                Role.USER,
                note + "\n\n" + (first.text() == null ? "" : first.text()),
                first.toolCalls(),
                first.toolCallId(),
                first.toolName(),
                first.result(),
                first.attachments()));
      } else {
        view.add(0, Message.user(note));
      }
    }
    return new View(
        view, leftOutTurns, fixed + sum, wholeTokens, clearedResults, leftOutMessages, compactedBy);
  }

  /**
   * Where the unit the window leaves out from {@code start} ends: a whole exchange (a user message
   * up to the next) before the current run's, else a model turn with its results, or one message.
   */
  private int unitEnd(int start, int runStart, int latestTurn) {
    Role role = messages.get(start).role();
    int end = start + 1;
    if (role == Role.USER && start != runStart) {
      while (end < messages.size() && messages.get(end).role() != Role.USER) {
        end++;
      }
      return end <= latestTurn ? end : start + 1;
    }
    if (role == Role.ASSISTANT) {
      while (end < messages.size() && messages.get(end).role() == Role.TOOL) {
        end++;
      }
    }
    return end;
  }

  /** A tool result as the view shows it once cleared: its call stays, its content is a note. */
  static Message cleared(Message result) {
    ObjectNode stub = JsonNodeFactory.instance.objectNode();
    stub.put(
        "cleared",
        "The result of this "
            + result.toolName()
            + " call was cleared from the model's view to keep the conversation within the"
            + " context window; the session's transcript keeps it whole (tool call "
            + result.toolCallId()
            + ").");
    return result.withResult(stub);
  }

  /** A tool result longer than {@code maxChars} characters of JSON, cut with a note. */
  static Message cut(Message message, int maxChars) {
    if (message.role() != Role.TOOL || message.result() == null || maxChars == Integer.MAX_VALUE) {
      return message;
    }
    if (MessageSize.chars(message.result()) < maxChars / 2) {
      // Well under the limit even as JSON (quotes and escapes at most double the characters).
      return message;
    }
    String json = message.result().toString();
    if (json.length() <= maxChars) {
      return message;
    }
    int shown = Character.isHighSurrogate(json.charAt(maxChars - 1)) ? maxChars - 1 : maxChars;
    ObjectNode view = JsonNodeFactory.instance.objectNode();
    view.put("truncated", json.substring(0, shown));
    view.put(
        "note",
        "The result has "
            + json.length()
            + " characters of JSON; this view shows the first "
            + shown
            + ". The session's transcript keeps it whole (tool call "
            + message.toolCallId()
            + ").");
    return message.withResult(view);
  }
}
