package io.durableagents.cli;

import io.durableagents.client.ApprovalRow;
import io.durableagents.client.HistoryEntry;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Readable tables of what the projection holds: a session's checkpoint history and the approvals
 * inbox. Times are UTC; text from models and tools is escaped ({@link RunResultPrinter#printable})
 * and cut to fit a column.
 */
public final class ProjectionPrinter {
  static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final int LAST_MESSAGE_WIDTH = 48;

  private ProjectionPrinter() {}

  /** The history as a table, newest step first, with the last message of each checkpoint. */
  public static void printHistory(String sessionId, List<HistoryEntry> entries, PrintWriter out) {
    out.println(
        RunResultPrinter.printable(sessionId)
            + " · "
            + entries.size()
            + (entries.size() == 1 ? " history entry" : " history entries")
            + ", newest first (times UTC)");
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "STEP", "RUN", "SAVED AT", "STATUS", "FINISH", "MESSAGES", "TOKENS IN/OUT", "LAST MESSAGE"
        });
    for (HistoryEntry entry : entries) {
      var checkpoint = entry.checkpoint();
      List<Message> messages = checkpoint.messages();
      rows.add(
          new String[] {
            String.valueOf(entry.step()),
            String.valueOf(checkpoint.run()),
            time(entry.savedAt()),
            RunResultPrinter.printable(String.valueOf(entry.status())),
            checkpoint.finishReason() == null
                ? "-"
                : RunResultPrinter.printable(checkpoint.finishReason()),
            String.valueOf(messages.size()),
            checkpoint.usage().inputTokens() + " / " + checkpoint.usage().outputTokens(),
            messages.isEmpty()
                ? "-"
                : cut(describe(messages.get(messages.size() - 1)), LAST_MESSAGE_WIDTH)
          });
    }
    printTable(rows, new boolean[] {true, true, false, false, false, true, true, false}, out);
    for (HistoryEntry entry : entries) {
      if (entry.checkpoint().drift() != null) {
        // The run went on with its recorded definition on a worker whose agent is another.
        out.println(
            "drift at step "
                + entry.step()
                + " (run "
                + entry.checkpoint().run()
                + "): "
                + RunResultPrinter.printable(entry.checkpoint().drift()));
      }
    }
    printSuperseded(entries, out);
    printHookNotes(entries, out);
    out.flush();
  }

  /** One line per reset that superseded entries, naming their steps (oldest first). */
  private static void printSuperseded(List<HistoryEntry> entries, PrintWriter out) {
    Map<String, List<Integer>> byReset = new TreeMap<>();
    for (HistoryEntry entry : entries) {
      if (entry.superseded()) {
        byReset.computeIfAbsent(entry.supersededBy(), reset -> new ArrayList<>()).add(entry.step());
      }
    }
    for (Map.Entry<String, List<Integer>> reset : byReset.entrySet()) {
      List<Integer> steps = new ArrayList<>(reset.getValue());
      Collections.sort(steps);
      out.println(
          "superseded by the "
              + RunResultPrinter.printable(reset.getKey())
              + ": "
              + (steps.size() == 1 ? "step " : "steps ")
              + steps.stream().map(String::valueOf).collect(Collectors.joining(", ")));
    }
  }

  /**
   * One line per tool hook that changed a call, under the entry that recorded the call (entries are
   * newest first: an entry's new messages are those past the next one's).
   */
  private static void printHookNotes(List<HistoryEntry> entries, PrintWriter out) {
    for (int i = 0; i < entries.size(); i++) {
      HistoryEntry entry = entries.get(i);
      List<Message> messages = entry.checkpoint().messages();
      int from =
          i + 1 < entries.size()
              ? Math.min(messages.size(), entries.get(i + 1).checkpoint().messages().size())
              : 0;
      for (Message message : messages.subList(from, messages.size())) {
        if (message.role() != Role.TOOL || message.text() == null || message.text().isBlank()) {
          continue;
        }
        String prefix =
            "hooks at step "
                + entry.step()
                + ", tool "
                + RunResultPrinter.printable(message.toolName())
                + " (call "
                + RunResultPrinter.printable(message.toolCallId())
                + "): ";
        message
            .text()
            .lines()
            .forEach(line -> out.println(prefix + RunResultPrinter.printable(line)));
      }
    }
  }

  /** The approvals as a table, oldest request first, and how to decide the pending ones. */
  public static void printApprovals(
      List<ApprovalRow> approvals, boolean pendingOnly, PrintWriter out) {
    if (approvals.isEmpty()) {
      out.println(pendingOnly ? "No approval is waiting for a decision." : "No approvals.");
      out.flush();
      return;
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "REQUESTED (UTC)",
          "SESSION",
          "SUB-AGENT OF",
          "APPROVAL ID",
          "TOOL",
          "INPUT",
          "STATUS",
          "EXPIRES (UTC)",
          "DECIDED BY"
        });
    for (ApprovalRow approval : approvals) {
      rows.add(
          new String[] {
            time(approval.requestedAt()),
            RunResultPrinter.printable(approval.sessionId()),
            approval.parentSessionId() == null
                ? "-"
                : RunResultPrinter.printable(approval.parentSessionId()),
            RunResultPrinter.printable(approval.approvalId()),
            RunResultPrinter.printable(approval.toolName()),
            RunResultPrinter.compactJson(approval.input(), 40),
            RunResultPrinter.printable(String.valueOf(approval.status())),
            time(approval.expiresAt()),
            approval.decidedBy() == null ? "-" : RunResultPrinter.printable(approval.decidedBy())
          });
    }
    printTable(rows, new boolean[9], out);
    List<ApprovalRow> pending =
        approvals.stream().filter(ApprovalRow::isPending).collect(Collectors.toList());
    if (!pending.isEmpty()) {
      ApprovalRow first = pending.get(0);
      out.println();
      out.println(
          RunResultPrinter.plural(pending.size(), "approval")
              + " waiting; decide with: ./agents approve "
              + RunResultPrinter.printable(first.sessionId())
              + " "
              + RunResultPrinter.printable(first.approvalId())
              + "   (or reject)");
    }
    out.flush();
  }

  /** {@code role: text}, or the tool calls of an assistant turn, or a tool result. */
  static String describe(Message message) {
    if (message.role() == Role.TOOL) {
      return "tool "
          + RunResultPrinter.printable(message.toolName())
          + " = "
          + RunResultPrinter.compactJson(message.result(), LAST_MESSAGE_WIDTH);
    }
    StringBuilder text =
        new StringBuilder(message.role() == null ? "?" : message.role().value()).append(": ");
    if (message.text() != null && !message.text().isBlank()) {
      text.append(RunResultPrinter.printable(message.text().strip()).replace('\n', ' '));
    }
    if (!message.toolCalls().isEmpty()) {
      if (message.text() != null && !message.text().isBlank()) {
        text.append(' ');
      }
      text.append("→ ")
          .append(
              message.toolCalls().stream()
                  .map(ToolCall::name)
                  .map(RunResultPrinter::printable)
                  .collect(Collectors.joining(", ")));
    }
    return text.toString();
  }

  static String time(long epochMillis) {
    return epochMillis <= 0 ? "-" : TIME.format(Instant.ofEpochMilli(epochMillis));
  }

  static String cut(String text, int width) {
    return text.length() <= width ? text : text.substring(0, width - 1) + "…";
  }

  /** Columns padded to their widest cell; numbers (rightAligned) to the right. */
  static void printTable(List<String[]> rows, boolean[] rightAligned, PrintWriter out) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row[i].codePointCount(0, row[i].length()));
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        String cell = row[i];
        int pad = widths[i] - cell.codePointCount(0, cell.length());
        boolean last = i == columns - 1;
        if (rightAligned[i]) {
          line.append(" ".repeat(pad)).append(cell);
        } else {
          line.append(cell);
          if (!last) {
            line.append(" ".repeat(pad));
          }
        }
        if (!last) {
          line.append("  ");
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
