package io.durableagents.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.durableagents.conversation.Usage;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.ToolCallRecord;
import java.io.PrintWriter;
import java.io.UncheckedIOException;

/**
 * Prints run results: with {@code --json} exactly one JSON document (the run result), otherwise a
 * short summary for people. Human output escapes control characters, so hostile model or tool text
 * cannot drive the terminal.
 */
public final class RunResultPrinter {
  /** Longest JSON of tool arguments or results shown in human output before it is cut. */
  static final int MAX_INLINE_JSON = 200;

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** Two-space indentation, arrays one element a line, {@code "key": value}. */
  private static final ObjectWriter PRETTY =
      MAPPER.writer(
          new DefaultPrettyPrinter(
                  Separators.createDefaultInstance()
                      .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
              .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE));

  private RunResultPrinter() {}

  /** Prints {@code result} as JSON or as a summary. */
  public static void print(RunResult result, boolean json, PrintWriter out) {
    if (json) {
      printJson(result, out);
    } else {
      printHuman(result, out);
    }
  }

  /** Prints {@code value} as one JSON document followed by a newline, and flushes. */
  public static void printJson(Object value, PrintWriter out) {
    try {
      out.println(PRETTY.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException("Cannot write JSON: " + e.getOriginalMessage(), e);
    }
    out.flush();
  }

  /**
   * The summary: a status line, each tool call of the run as {@code → name {args} = result}, then
   * the final text.
   */
  public static void printHuman(RunResult result, PrintWriter out) {
    out.println(summaryLine(result));
    for (ToolCallRecord call : result.toolCalls()) {
      out.println("  " + toolCallLine(call));
    }
    if (result.error() != null) {
      out.println(
          "  error: "
              + printable(result.error().code())
              + (result.error().message() == null
                  ? ""
                  : ": " + printable(result.error().message())));
    }
    if (RunStatus.AWAITING_APPROVAL.equals(result.status())) {
      printApproval(result.sessionId(), result.approval(), out);
    }
    if (result.text() != null && !result.text().isBlank()) {
      out.println();
      out.println(printable(result.text().strip()));
    }
    if (result.output() != null && !result.output().isNull()) {
      out.println();
      out.println("output: " + compactJson(result.output(), Integer.MAX_VALUE));
    }
    out.flush();
  }

  /** The pending approval of a session and how to decide it. */
  public static void printApproval(String sessionId, Approval approval, PrintWriter out) {
    String id = approval == null ? "APPROVAL_ID" : printable(approval.approvalId());
    if (approval != null) {
      out.println(
          "  awaiting approval "
              + id
              + ": "
              + printable(approval.toolName())
              + " "
              + compactJson(approval.input(), MAX_INLINE_JSON));
      if (approval.sessionId() != null) {
        out.println("  asked by sub-agent session " + printable(approval.sessionId()));
      }
    }
    out.println(
        "  decide with: ./agents approve " + printable(sessionId) + " " + id + "   (or reject)");
  }

  /** {@code chat-1 · run 2 · finished (stop) · 3 steps · 523 in / 106 out tokens}. */
  public static String summaryLine(RunResult result) {
    StringBuilder line = new StringBuilder();
    line.append(printable(result.sessionId())).append(" · run ").append(result.run());
    line.append(" · ").append(printable(String.valueOf(result.status())));
    if (result.finishReason() != null
        && !result.finishReason().equals(String.valueOf(result.status()))) {
      line.append(" (").append(printable(result.finishReason())).append(')');
    }
    line.append(" · ").append(plural(result.steps(), "step"));
    line.append(" · ").append(usage(result.usage()));
    return line.toString();
  }

  /** {@code 523 in / 106 out tokens}. */
  public static String usage(Usage usage) {
    Usage u = usage == null ? Usage.ZERO : usage;
    return u.inputTokens() + " in / " + u.outputTokens() + " out tokens";
  }

  /**
   * {@code → name {args} = result}, JSON cut at {@value #MAX_INLINE_JSON} characters; a call the
   * run's result left out says so.
   */
  public static String toolCallLine(ToolCallRecord call) {
    if (call.isOmitted()) {
      return "→ " + printable(call.name()) + " (arguments and result in the transcript)";
    }
    String line =
        "→ " + printable(call.name()) + " " + compactJson(call.arguments(), MAX_INLINE_JSON);
    return call.result() == null
        ? line
        : line + " = " + compactJson(call.result(), MAX_INLINE_JSON);
  }

  /**
   * One-line JSON of {@code node} ({@code {}} for null), cut to {@code maxChars} with an ellipsis.
   */
  public static String compactJson(JsonNode node, int maxChars) {
    String json;
    if (node == null || node.isMissingNode()) {
      json = "{}";
    } else {
      try {
        json = MAPPER.writeValueAsString(node);
      } catch (JsonProcessingException e) {
        json = String.valueOf(node);
      }
    }
    json = printable(json);
    return json.length() <= maxChars ? json : json.substring(0, Math.max(0, maxChars - 1)) + "…";
  }

  /**
   * {@code text} with control characters other than newline and tab shown as {@code \\uXXXX}, so
   * printing it cannot move the cursor, clear the screen or retitle the terminal.
   */
  public static String printable(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints()
        .forEach(
            cp -> {
              boolean control =
                  (cp < 0x20 && cp != '\n' && cp != '\t') || (cp >= 0x7f && cp < 0xa0);
              boolean bidi =
                  cp == 0x202a
                      || cp == 0x202b
                      || cp == 0x202c
                      || cp == 0x202d
                      || cp == 0x202e
                      || (cp >= 0x2066 && cp <= 0x2069);
              if (control || bidi) {
                out.append(String.format("\\u%04x", cp));
              } else {
                out.appendCodePoint(cp);
              }
            });
    return out.toString();
  }

  static String plural(long count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }
}
