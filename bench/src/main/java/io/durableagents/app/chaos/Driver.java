package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.app.bench.AgentsCommandProcess;
import io.durableagents.client.AgentClient;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionAwaitingApprovalException;
import io.durableagents.client.SessionNotFoundException;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.RunResult;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Drives one session as a client would: sends "go", decides its approval through the console's REST
 * API or the CLI ({@code agents approve}), waits for the run to settle, and forks it when planned
 * (through the REST API) and drives the fork. An error that a retry may cure (Temporal, the console
 * or PostgreSQL down) is counted by kind and retried after a short pause until the run's deadline;
 * any other error, or the deadline, ends the session's driver with the reason kept: nothing is
 * retried past the deadline, and every retry is in the counts.
 */
final class Driver {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CLI_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(60);

  /** The end of a session's driver at the deadline. */
  static final class DeadlineException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeadlineException(String message) {
      super(message);
    }
  }

  /** A guarantee the answer of the product broke (an approval it does not know, a refusal). */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final Cluster cluster;
  private final AgentClient agents;
  private final WorkflowServiceStubs service;
  private final HttpClient http;
  private final LongSupplier deadlineMillis;
  private final Map<String, Integer> retries = new ConcurrentSkipListMap<>();
  private final Map<String, String> retrySamples = new ConcurrentSkipListMap<>();
  private final AtomicInteger cliRuns = new AtomicInteger();
  private final AtomicInteger restDecisions = new AtomicInteger();
  private final AtomicInteger cliDecisions = new AtomicInteger();
  private final AtomicInteger forks = new AtomicInteger();

  Driver(
      Cluster cluster,
      AgentClient agents,
      WorkflowServiceStubs service,
      LongSupplier deadlineMillis) {
    this.cluster = cluster;
    this.agents = agents;
    this.service = service;
    this.deadlineMillis = deadlineMillis;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /** Retries by what was retried and why ({@code send: UNAVAILABLE}). */
  Map<String, Integer> retries() {
    return Map.copyOf(retries);
  }

  /** The first message of each kind of retry. */
  Map<String, String> retrySamples() {
    return Map.copyOf(retrySamples);
  }

  int restDecisions() {
    return restDecisions.get();
  }

  int cliDecisions() {
    return cliDecisions.get();
  }

  int forks() {
    return forks.get();
  }

  /** The console's identity for local requests: what its REST decisions are recorded under. */
  String consoleIdentity() throws InterruptedException {
    while (true) {
      checkDeadline("reading the console's identity");
      try {
        HttpResponse<String> answer = request("GET", "/api/me", null);
        if (answer.statusCode() == 200) {
          return JSON.readTree(answer.body()).path("identity").asText();
        }
        retried("console identity", "HTTP " + answer.statusCode());
      } catch (IOException e) {
        retried("console identity", e.getClass().getSimpleName());
      }
      pause();
    }
  }

  /** Runs the session to the end (and its fork, if planned); never throws. */
  void drive(SessionRecord session) {
    try {
      RunResult result = settle(session, start(session));
      session.result = result;
      note(session, "settled " + result.status());
      if (session.forkPlanned && RunStatus.FINISHED.equals(result.status())) {
        SessionRecord fork = fork(session);
        session.fork = fork;
        fork.result = settle(fork, attach(fork));
        note(fork, "settled " + fork.result.status());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      session.failure = "interrupted at: " + session.lastStep;
    } catch (RuntimeException e) {
      SessionRecord failed = session.fork != null ? session.fork : session;
      failed.failure = describe(e) + " (last step: " + failed.lastStep + ")";
    }
  }

  /** Sends "go" until the session took it, then waits for the run to settle or pause. */
  private RunResult start(SessionRecord session) throws InterruptedException {
    SendOptions options = SendOptions.newBuilder().setAgent(session.agent).build();
    boolean maybeStarted = false;
    while (true) {
      checkDeadline(session.id);
      try {
        if (!maybeStarted) {
          note(session, "send go");
          return untilDeadline(session, agents.sendAsync(session.id, "go", options));
        }
        note(session, "attach after a failed send");
        return untilDeadline(session, agents.awaitRunAsync(session.id));
      } catch (SessionAwaitingApprovalException e) {
        // A send that reached a run already paused: the attach returns the paused run.
        maybeStarted = true;
      } catch (SessionNotFoundException e) {
        // The failed send never reached the session: send it again.
        maybeStarted = false;
      } catch (RuntimeException e) {
        requireTransient(maybeStarted ? "attach" : "send", e);
        // Whether the send reached the session is unknown: attach, and send again only if the
        // session says it has no run (a second "go" would start a second run).
        maybeStarted = true;
        pause();
      }
    }
  }

  /** Decides every approval the run pauses on, until it settles. */
  private RunResult settle(SessionRecord session, RunResult result) throws InterruptedException {
    RunResult current = result;
    while (RunStatus.AWAITING_APPROVAL.equals(current.status())) {
      if (current.approval() == null) {
        throw new Refused(session.id + ": paused without an approval: " + current, null);
      }
      String approvalId = current.approval().approvalId();
      // A human takes a moment; kills and outages strike meanwhile.
      note(session, "decide " + approvalId + " soon");
      Thread.sleep(ThreadLocalRandom.current().nextLong(200, 5_000));
      if (session.channel == SessionRecord.Channel.CLI) {
        decideWithCli(session, approvalId);
      } else {
        decideWithRest(session, approvalId);
      }
      current = attach(session);
    }
    return current;
  }

  /** Waits for the session's run, retrying what a fault interrupted. */
  private RunResult attach(SessionRecord session) throws InterruptedException {
    while (true) {
      checkDeadline(session.id);
      note(session, "attach");
      try {
        return untilDeadline(session, agents.awaitRunAsync(session.id));
      } catch (RuntimeException e) {
        requireTransient("attach", e);
        pause();
      }
    }
  }

  /**
   * The run's result, or a {@link DeadlineException} at the deadline (the run goes on): a run that
   * never settles must not hold its driver past it. The future's own failure is thrown as is.
   */
  private <T> T untilDeadline(SessionRecord session, CompletableFuture<T> run)
      throws InterruptedException {
    long left = deadlineMillis.getAsLong() - System.currentTimeMillis();
    try {
      return run.get(Math.max(left, 0), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new DeadlineException(session.id + " did not settle by the deadline");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private void decideWithRest(SessionRecord session, String approvalId)
      throws InterruptedException {
    String path = "/api/sessions/" + encode(session.id) + "/approvals/" + encode(approvalId);
    ObjectNode body = JSON.createObjectNode().put("approved", true).put("note", "chaos");
    while (true) {
      checkDeadline(session.id);
      note(session, "REST decide " + approvalId);
      HttpResponse<String> answer;
      try {
        answer = request("POST", path, body.toString());
      } catch (IOException e) {
        retried("REST decide", e.getClass().getSimpleName());
        pause();
        continue;
      }
      int status = answer.statusCode();
      String error = errorCode(answer.body());
      if (status == 200) {
        session.decisions.put(approvalId, "decided");
        restDecisions.incrementAndGet();
        return;
      }
      if (status == 409 && "approval_decided".equals(error)) {
        // An earlier attempt of ours landed before its answer was lost; who decided it is
        // checked against the history and the projection afterwards.
        session.decisions.put(approvalId, "already decided");
        restDecisions.incrementAndGet();
        return;
      }
      if (status == 404 && answer.body().contains("has no approval")) {
        throw new Refused(
            session.id
                + ": the session does not know approval "
                + approvalId
                + ": "
                + answer.body(),
            null);
      }
      if (status >= 500 || status == 404) {
        // 5xx: Temporal or PostgreSQL down behind the console; 404 "no session": the projection
        // has not caught up with the session's first save yet.
        retried(
            "REST decide",
            "HTTP " + status + (error.isEmpty() ? "" : " " + error),
            shortLine(answer.body()));
        pause();
        continue;
      }
      throw new Refused(
          session.id
              + ": REST decision of "
              + approvalId
              + " answered "
              + status
              + ": "
              + answer.body(),
          null);
    }
  }

  private void decideWithCli(SessionRecord session, String approvalId) throws InterruptedException {
    List<String> args =
        List.of(
            "approve",
            session.id,
            approvalId,
            "--by",
            SessionRecord.CLI_IDENTITY,
            "--note",
            "chaos",
            "--no-wait",
            "--temporal",
            cluster.address(),
            "--task-queue",
            Cluster.TASK_QUEUE,
            "--projection",
            cluster.liveUrl());
    while (true) {
      checkDeadline(session.id);
      note(session, "CLI decide " + approvalId);
      int run = cliRuns.incrementAndGet();
      Path log = cluster.dir().resolve("logs").resolve("cli-" + run + ".log");
      AgentsCommandProcess cli =
          AgentsCommandProcess.start(
              "cli-" + run, cluster.dir(), log, AgentsCommandProcess.COMMAND_JVM, args, Map.of());
      int exit = cli.awaitExit(CLI_TIMEOUT);
      String output = cli.output();
      if (exit == 0) {
        session.decisions.put(approvalId, "decided");
        cliDecisions.incrementAndGet();
        return;
      }
      if (exit == 1 && output.contains("is already decided")) {
        session.decisions.put(approvalId, "already decided");
        cliDecisions.incrementAndGet();
        return;
      }
      if (exit == 4) {
        throw new Refused(
            session.id + ": the session does not know approval " + approvalId + ": " + output,
            null);
      }
      retried(
          "CLI decide",
          exit == -1 ? "killed after " + CLI_TIMEOUT.toSeconds() + " s" : "exit " + exit,
          shortLine(output));
      pause();
    }
  }

  /** Forks a finished session after its first tool batch, through the REST API. */
  private SessionRecord fork(SessionRecord session) throws InterruptedException {
    int step = firstBatchStep(session);
    String forkId = session.id + ".fork";
    ObjectNode body = JSON.createObjectNode().put("fromStep", step).put("newSessionId", forkId);
    boolean attempted = false;
    while (true) {
      checkDeadline(session.id);
      note(session, "fork from step " + step);
      if (attempted && exists(forkId)) {
        // An earlier attempt made it; its answer was lost.
        break;
      }
      attempted = true;
      HttpResponse<String> answer;
      try {
        answer = request("POST", "/api/sessions/" + encode(session.id) + "/forks", body.toString());
      } catch (IOException e) {
        retried("REST fork", e.getClass().getSimpleName());
        pause();
        continue;
      }
      int status = answer.statusCode();
      if (status == 201) {
        break;
      }
      if (status >= 500 || status == 404) {
        retried("REST fork", "HTTP " + status + " " + errorCode(answer.body()));
        pause();
        continue;
      }
      throw new Refused(
          session.id + ": fork from step " + step + " answered " + status + ": " + answer.body(),
          null);
    }
    forks.incrementAndGet();
    return session.forked(forkId, step);
  }

  /** The kept entry right after the first tool batch: "go", the turn and its three results. */
  private int firstBatchStep(SessionRecord session) throws InterruptedException {
    while (true) {
      checkDeadline(session.id);
      note(session, "read history for the fork");
      List<HistoryEntry> entries;
      try {
        entries = agents.history(session.id, 0);
      } catch (RuntimeException e) {
        retried("history", kind(e));
        pause();
        continue;
      }
      for (HistoryEntry entry : entries) {
        if (entry.checkpoint() != null
            && entry.checkpoint().messages() != null
            && entry.checkpoint().messages().size() == 5) {
          return entry.step();
        }
      }
      throw new Refused(
          session.id + ": no kept history entry after the first tool batch, of " + entries.size(),
          null);
    }
  }

  private boolean exists(String sessionId) {
    try {
      service
          .blockingStub()
          .withDeadlineAfter(10, TimeUnit.SECONDS)
          .describeWorkflowExecution(
              DescribeWorkflowExecutionRequest.newBuilder()
                  .setNamespace("default")
                  .setExecution(WorkflowExecution.newBuilder().setWorkflowId(sessionId).build())
                  .build());
      return true;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      retried("describe", e.getStatus().getCode().name());
      return false;
    }
  }

  private HttpResponse<String> request(String method, String path, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(cluster.consoleUrl() + path))
            .timeout(HTTP_TIMEOUT)
            .header("Accept", "application/json");
    if (body == null) {
      request.GET();
    } else {
      request
          .header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body));
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private void requireTransient(String what, RuntimeException e) {
    if (!isTransient(e)) {
      throw e;
    }
    String message = describe(e);
    retried(what, kind(e), message.length() > 300 ? message.substring(0, 300) + "..." : message);
  }

  /**
   * Errors of Temporal's service (down, restarting, a long poll cut): retried. A refusal by the
   * session (a failed update) is not.
   */
  static boolean isTransient(Throwable error) {
    boolean service = false;
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof WorkflowUpdateException) {
        return false;
      }
      if (t instanceof WorkflowServiceException || t instanceof StatusRuntimeException) {
        service = true;
      }
    }
    return service;
  }

  /** The gRPC status of the error, or the class of its innermost cause. */
  static String kind(Throwable error) {
    String kind = error.getClass().getSimpleName();
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      kind =
          t instanceof StatusRuntimeException grpc
              ? grpc.getStatus().getCode().name()
              : t.getClass().getSimpleName();
      if (t instanceof StatusRuntimeException) {
        break;
      }
    }
    return kind;
  }

  static String describe(Throwable error) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (text.length() > 0) {
        text.append(" <- ");
      }
      text.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
    }
    return text.toString();
  }

  private void retried(String what, String why) {
    retried(what, why, null);
  }

  private void retried(String what, String why, String sample) {
    retries.merge(what + ": " + why, 1, Integer::sum);
    if (sample != null) {
      retrySamples.putIfAbsent(what + ": " + why, sample);
    }
  }

  private void checkDeadline(String session) {
    if (System.currentTimeMillis() > deadlineMillis.getAsLong()) {
      throw new DeadlineException(session + " did not settle by the deadline");
    }
  }

  private static void pause() throws InterruptedException {
    Thread.sleep(ThreadLocalRandom.current().nextLong(300, 1_000));
  }

  private static void note(SessionRecord session, String step) {
    session.lastStep = step;
  }

  private static String errorCode(String body) {
    try {
      return JSON.readTree(body).path("error").asText();
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static String shortLine(String output) {
    List<String> lines = output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    String line = lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
    return line.length() > 120 ? line.substring(0, 120) + "..." : line;
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }
}
