package io.durableagents.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.EmbeddedTemporalServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.cli.ExitCodes;
import io.durableagents.cli.RunResultPrinter;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.session.Approval;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.DecisionOutcome;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.SessionStatus;
import io.durableagents.workflow.ToolCallRecord;
import io.durableagents.workflow.internal.wire.AgentSessionWorkflow;
import io.durableagents.workflow.internal.wire.Decision;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code agents demo}: one process with the embedded Temporal server, a worker, a fresh SQLite
 * projection and the {@code concierge} agent; plays a two-message conversation and prints it.
 */
@Command(
    name = "demo",
    description = {
      "A guided tour in one process: embedded Temporal, a worker, SQLite and the concierge agent.",
      "Books a table, then continues the same conversation; prints every step. Needs no setup."
    },
    footer = "")
public class DemoCommand implements Callable<Integer> {
  static final String PROJECTION_FILE = ".agents/demo.db";
  static final String PROJECTION_URL = "jdbc:sqlite:" + PROJECTION_FILE;
  static final String SESSION = "demo-1";
  static final String FIRST_MESSAGE = "Book a table for 2 in Paris tonight at 19:30";
  static final String SECOND_MESSAGE = "Thanks! What should I wear?";

  private static final int MAX_APPROVALS = 5;
  private static final int WIDTH = 78;
  private static final int MAX_JSON = 160;
  private static final String INDENT = "             ";

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    deleteProjection(Path.of(PROJECTION_FILE));

    out.println("Durable agents demo");
    out.println("===================");
    out.flush();
    try (EmbeddedTemporalServer server = EmbeddedTemporalServer.start(0);
        AgentWorker worker =
            AgentWorker.start(
                new WorkerConfig(
                    server.address(),
                    WorkerConfig.DEFAULT_NAMESPACE,
                    WorkerConfig.DEFAULT_TASK_QUEUE,
                    PROJECTION_URL,
                    null))) {
      out.println(
          "Started an embedded Temporal server on "
              + server.address()
              + " and a worker for the '"
              + ConciergeAgent.NAME
              + "' agent");
      out.println(
          "(task queue '"
              + WorkerConfig.DEFAULT_TASK_QUEUE
              + "', projection "
              + PROJECTION_URL
              + ", scripted model).");
      out.flush();

      try (ProjectionReader projection = ProjectionReader.open(PROJECTION_URL);
          AgentClient agents =
              AgentClient.newInstance(
                  worker.client(),
                  AgentClientOptions.newBuilder()
                      .setTaskQueue(WorkerConfig.DEFAULT_TASK_QUEUE)
                      .setProjection(projection)
                      .build())) {
        return play(worker.client(), agents, out);
      }
    }
  }

  private int play(WorkflowClient workflows, AgentClient agents, PrintWriter out) {
    heading(out, "Run 1 · new session '" + SESSION + "'");
    long started = System.nanoTime();
    RunResult first =
        agents.send(
            SESSION, FIRST_MESSAGE, SendOptions.newBuilder().setAgent(ConciergeAgent.NAME).build());
    printRun(out, first, 0, System.nanoTime() - started);
    first = approvePauses(workflows, agents, first, out);
    if (!RunStatus.FINISHED.equals(first.status())) {
      out.println();
      out.println("The first run did not finish (" + first.status() + "), so the demo stops here.");
      out.flush();
      return ExitCodes.forStatus(first.status()) == ExitCodes.OK
          ? ExitCodes.ERROR
          : ExitCodes.forStatus(first.status());
    }

    int before = first.messages() == null ? 0 : first.messages().size();
    heading(out, "Run 2 · same session, the conversation goes on");
    started = System.nanoTime();
    RunResult second = agents.send(SESSION, SECOND_MESSAGE);
    printRun(out, second, before, System.nanoTime() - started);

    out.println();
    out.println(
        wrap(
            "",
            "Run 2 continued session '"
                + SESSION
                + "': the model saw all "
                + before
                + " earlier messages. Every model turn and tool call above was a Temporal activity,"
                + " its result recorded in the workflow history: had the worker crashed mid-run, a new"
                + " one would resume from the last recorded step without asking the model again or"
                + " booking a second table.",
            ""));
    agents
        .status(SESSION)
        .map(SessionStatus::businessState)
        .ifPresent(
            state -> {
              out.println();
              out.println(
                  wrap(
                      "",
                      "The tools keep business state with every checkpoint; book_table noted"
                          + " its booking there:",
                      ""));
              out.println(INDENT + RunResultPrinter.compactJson(state, MAX_JSON));
            });
    out.println();
    out.println(
        "The conversation is in "
            + PROJECTION_FILE
            + " (SQLite projection, "
            + (second.messages() == null ? "?" : second.messages().size())
            + " messages).");
    out.println(
        "Next: run './agents dev', then in another shell './agents send chat-1 \"hello\"'.");
    out.flush();
    return ExitCodes.forStatus(second.status());
  }

  /**
   * Approves each approval the run pauses for, as a back-office user would, and follows the run to
   * its end. Approvals are decided with the workflow's {@code approve} update.
   */
  private static RunResult approvePauses(
      WorkflowClient workflows, AgentClient agents, RunResult result, PrintWriter out) {
    RunResult current = result;
    for (int pauses = 0;
        pauses < MAX_APPROVALS
            && RunStatus.AWAITING_APPROVAL.equals(current.status())
            && current.approval() != null;
        pauses++) {
      Approval approval = current.approval();
      String id = RunResultPrinter.printable(approval.approvalId());
      out.println(
          wrap(
              INDENT,
              RunResultPrinter.printable(approval.toolName())
                  + " waits for approval "
                  + id
                  + ". The workflow waits durably, for days if need be; the demo approves, as"
                  + " a back office or this command would:",
              INDENT));
      out.println(INDENT + "./agents approve " + SESSION + " " + id);
      out.flush();
      DecisionOutcome outcome =
          workflows
              .newWorkflowStub(AgentSessionWorkflow.class, SESSION)
              .approve(new Decision(approval.approvalId(), true, "Approved in the demo", "demo"));
      out.println(
          INDENT
              + "✓ "
              + RunResultPrinter.printable(outcome.outcome().value())
              + ", the run resumes");
      out.flush();
      int shown = current.messages() == null ? 0 : current.messages().size();
      long started = System.nanoTime();
      current = agents.awaitRun(SESSION);
      printRun(out, current, shown, System.nanoTime() - started);
    }
    return current;
  }

  private static void heading(PrintWriter out, String title) {
    out.println();
    String line = "── " + title + " ";
    out.println(line + "─".repeat(Math.max(3, WIDTH - line.length())));
    out.flush();
  }

  /** The messages the run added (from {@code from}), then a one-line summary of the run. */
  static void printRun(PrintWriter out, RunResult result, int from, long elapsedNanos) {
    List<Message> messages = result.messages();
    if (messages == null || messages.size() < from) {
      printWithoutTranscript(out, result);
    } else {
      Map<String, JsonNode> results = new HashMap<>();
      for (Message message : messages.subList(from, messages.size())) {
        if (message.role() == Role.TOOL && message.toolCallId() != null) {
          results.put(message.toolCallId(), message.result());
        }
      }
      Set<String> shownCalls = new HashSet<>();
      for (Message message : messages.subList(from, messages.size())) {
        if (message.role() == Role.ASSISTANT) {
          message.toolCalls().forEach(call -> shownCalls.add(call.id()));
        }
      }
      for (Message message : messages.subList(from, messages.size())) {
        if (message.role() == Role.TOOL && !shownCalls.contains(message.toolCallId())) {
          // The result of a call shown earlier, e.g. before an approval pause.
          out.println(INDENT + "→ " + RunResultPrinter.printable(message.toolName()));
          out.println(INDENT + "  = " + RunResultPrinter.compactJson(message.result(), MAX_JSON));
        } else if (message.role() == Role.USER) {
          out.println(wrap(label("you"), RunResultPrinter.printable(message.text()), INDENT));
        } else if (message.role() == Role.ASSISTANT) {
          if (message.text() != null && !message.text().isBlank()) {
            out.println(
                wrap(
                    label("concierge"),
                    RunResultPrinter.printable(message.text().strip()),
                    INDENT));
          } else {
            out.println(label("concierge").stripTrailing());
          }
          for (ToolCall call : message.toolCalls()) {
            printToolCall(out, call.name(), call.arguments(), results.get(call.id()));
          }
        }
      }
    }
    out.println(summary(result, elapsedNanos));
    out.flush();
  }

  private static void printWithoutTranscript(PrintWriter out, RunResult result) {
    for (ToolCallRecord call : result.toolCalls()) {
      printToolCall(out, call.name(), call.arguments(), call.result());
    }
    if (result.text() != null) {
      out.println(wrap(label("concierge"), RunResultPrinter.printable(result.text()), INDENT));
    }
  }

  private static void printToolCall(
      PrintWriter out, String name, JsonNode arguments, JsonNode result) {
    out.println(
        INDENT
            + "→ "
            + RunResultPrinter.printable(name)
            + " "
            + RunResultPrinter.compactJson(arguments, MAX_JSON));
    if (result != null) {
      out.println(INDENT + "  = " + RunResultPrinter.compactJson(result, MAX_JSON));
    }
  }

  private static String summary(RunResult result, long elapsedNanos) {
    String mark =
        RunStatus.FINISHED.equals(result.status())
            ? "✓"
            : RunStatus.AWAITING_APPROVAL.equals(result.status()) ? "⏸" : "✗";
    StringBuilder line =
        new StringBuilder(mark)
            .append(" run ")
            .append(result.run())
            .append(' ')
            .append(result.status());
    if (result.finishReason() != null
        && !result.finishReason().equals(String.valueOf(result.status()))) {
      line.append(" (").append(result.finishReason()).append(')');
    }
    line.append(" · ")
        .append(result.steps())
        .append(result.steps() == 1 ? " model turn" : " model turns");
    int calls = result.toolCalls().size();
    line.append(" · ").append(calls).append(calls == 1 ? " tool call" : " tool calls");
    line.append(" · ").append(RunResultPrinter.usage(result.usage()));
    line.append(String.format(" · %.1f s", elapsedNanos / 1e9));
    if (result.error() != null) {
      line.append(System.lineSeparator())
          .append("  error: ")
          .append(result.error().code())
          .append(": ")
          .append(RunResultPrinter.printable(result.error().message()));
    }
    return line.toString();
  }

  private static String label(String who) {
    return String.format("%-" + INDENT.length() + "s", who);
  }

  /**
   * {@code first} followed by {@code text} word-wrapped at {@value #WIDTH} columns, continuation
   * lines starting with {@code indent}.
   */
  static String wrap(String first, String text, String indent) {
    StringBuilder out = new StringBuilder(first);
    int column = first.length();
    boolean lineStart = true;
    String[] paragraphs = (text == null ? "" : text).split("\n", -1);
    for (int p = 0; p < paragraphs.length; p++) {
      if (p > 0) {
        out.append('\n').append(indent);
        column = indent.length();
        lineStart = true;
      }
      for (String word : paragraphs[p].split(" +", -1)) {
        if (word.isEmpty()) {
          continue;
        }
        if (!lineStart && column + 1 + word.length() > WIDTH) {
          out.append('\n').append(indent);
          column = indent.length();
          lineStart = true;
        }
        if (!lineStart) {
          out.append(' ');
          column++;
        }
        out.append(word);
        column += word.length();
        lineStart = false;
      }
    }
    return out.toString();
  }

  /** Removes the demo database and its WAL files so every demo starts clean. */
  static void deleteProjection(Path file) {
    for (String suffix : List.of("", "-wal", "-shm", "-journal")) {
      Path path = Path.of(file + suffix);
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot delete " + path + ": " + e.getMessage(), e);
      }
    }
  }
}
