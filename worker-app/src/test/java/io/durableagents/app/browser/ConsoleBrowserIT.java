package io.durableagents.app.browser;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.AgentWorker;
import io.durableagents.app.TemporalDevServer;
import io.durableagents.app.WorkerConfig;
import io.durableagents.app.agents.AgentsFile;
import io.durableagents.app.agents.ToolCatalog;
import io.durableagents.app.console.ConsoleDeltaListener;
import io.durableagents.app.testing.ExampleAgents;
import io.durableagents.app.testing.RealTemporal;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.HistoryEntry;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionRow;
import io.durableagents.console.AgentConsole;
import io.durableagents.console.ConsoleAuth;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.mcp.McpToolProvider;
import io.durableagents.session.ApprovalStatus;
import io.durableagents.session.RunStatus;
import io.durableagents.streaming.Delta;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.WebElement;

/**
 * The console in a real browser: the real Temporal dev server, an in-process worker serving the
 * demo concierge agent, and the console in this process (so the worker's deltas reach its pages).
 * Every test starts its own worker, task queue, projection and console, so each inbox shows only
 * that test's approvals, and its own headless Chromium.
 *
 * <p>Screenshots of the pages go to {@code target/screenshots/}; with {@code
 * -Dconsole.screenshots=DIR} the inbox and a session page are also saved to DIR as {@code
 * console-inbox.png} and {@code console-session.png} (the ones in docs/).
 */
class ConsoleBrowserIT {
  /** The booking request of {@code agents demo}: the concierge's script books, with approval. */
  private static final String BOOKING = "Book a table for 2 in Paris tonight at 19:30";

  private static final Duration PAGE = Duration.ofSeconds(15);
  private static final Duration RUN = Duration.ofSeconds(60);
  private static final Path SCREENSHOTS = Path.of("target", "screenshots");

  @TempDir static Path serverDir;
  private static TemporalDevServer server;
  private static final AtomicInteger stacks = new AtomicInteger();

  @TempDir Path dir;
  private HeadlessChromium browser;
  private Stack stack;
  private String testName;

  @BeforeAll
  static void startTemporal() {
    server = RealTemporal.start(serverDir);
  }

  @AfterAll
  static void stopTemporal() {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void startBrowser(TestInfo info) {
    testName = info.getTestMethod().orElseThrow().getName();
    browser = HeadlessChromium.start();
  }

  @AfterEach
  void stop() {
    try {
      if (browser != null) {
        try {
          // What the page looked like at the end, kept for whoever reads a failure.
          browser.screenshot(SCREENSHOTS.resolve(testName + ".png"));
        } finally {
          browser.close();
        }
      }
    } finally {
      if (stack != null) {
        stack.close();
      }
    }
  }

  @Test
  void approvesAPendingBookingFromTheInbox_andTheRunFinishes() {
    stack = Stack.start(dir, null, UnaryOperator.identity());
    String session = "inbox-approve";
    RunResult paused = sendBooking(session);

    browser.open(stack.console.url());
    WebElement card = card(paused.approval().approvalId());
    assertThat(card.getAttribute("data-session-id")).isEqualTo(session);
    assertThat(card.findElement(By.cssSelector(".tool")).getText()).isEqualTo("book_table");
    assertThat(card.findElement(By.cssSelector("pre.arguments")).getText())
        .contains("Le Petit Zinc")
        .contains("19:30");
    assertThat(card.findElement(By.cssSelector(".age")).getText()).isNotBlank();
    // The conversation around the call loads after the card.
    waitForConversation(card);
    card.findElement(By.cssSelector("textarea[name=note]")).sendKeys("Regular guest, approved");
    browser.click(cardCss(paused.approval().approvalId()) + " button.approve", PAGE);

    assertThat(outcome(paused.approval().approvalId()))
        .containsIgnoringCase("approved")
        .contains(System.getProperty("user.name"));
    RunResult finished = stack.agents.awaitRun(session);
    assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(finished.text()).contains("is booked");
    ApprovalRow row = decidedApproval(paused.approval().approvalId());
    assertThat(row.status()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(row.decidedBy()).isEqualTo(System.getProperty("user.name"));
    assertThat(row.note()).isEqualTo("Regular guest, approved");

    // The session list leads to the session page, which shows the finished run.
    browser.open(stack.console.url().resolve("sessions"));
    browser.click("table#sessions tr[data-session-id='" + session + "'] a", PAGE);
    waitForStatus("finished");
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(sessionPage(session).toString());
    browser.waitUntil(
        PAGE,
        "the transcript to show the booking's confirmation",
        driver ->
            texts("#transcript .message[data-role=assistant] .text").contains(finished.text()));
  }

  @Test
  void rejectsWithANote_andTheNoteShowsInTheTranscript() {
    stack = Stack.start(dir, null, UnaryOperator.identity());
    String session = "inbox-reject";
    RunResult paused = sendBooking(session);

    browser.open(stack.console.url());
    WebElement card = card(paused.approval().approvalId());
    card.findElement(By.cssSelector("textarea[name=note]")).sendKeys("Fully booked that night");
    browser.click(cardCss(paused.approval().approvalId()) + " button.reject", PAGE);

    assertThat(outcome(paused.approval().approvalId()))
        .containsIgnoringCase("rejected")
        .contains("Fully booked that night");
    assertThat(stack.agents.awaitRun(session).status()).isEqualTo(RunStatus.FINISHED);
    ApprovalRow row = decidedApproval(paused.approval().approvalId());
    assertThat(row.status()).isEqualTo(ApprovalStatus.REJECTED);
    assertThat(row.decidedBy()).isEqualTo(System.getProperty("user.name"));
    assertThat(row.note()).isEqualTo("Fully booked that night");

    browser.open(sessionPage(session));
    browser.waitUntil(
        PAGE,
        "a #transcript .tool-result with the rejection's note",
        driver ->
            texts("#transcript .tool-result").stream()
                .anyMatch(result -> result.contains("Fully booked that night")));
  }

  @Test
  void approvesASubAgentsCallFromTheInbox_throughItsParent_andTheLineageLinksBothSessions()
      throws Exception {
    // The shipped example: the concierge hands the weather question to its weather sub-agent,
    // whose MCP tool forecast needs an approval, then books a table (another approval).
    stack =
        Stack.start(
            dir,
            null,
            UnaryOperator.identity(),
            ConsoleAuth.local(),
            AgentsFile.load(ExampleAgents.write(dir), ToolCatalog.demo()));
    String parent = "trip-inbox";
    RunResult paused = stack.agents.send(parent, "Book dinner in Paris tonight");
    assertThat(paused.status()).as(paused.toString()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.approval().toolName()).isEqualTo("forecast");
    String child = paused.approval().sessionId();
    assertThat(child).matches(Pattern.quote(parent + ":sub:") + "[0-9a-f]{16}");
    String approvalId = paused.approval().approvalId();

    browser.open(stack.console.url());
    WebElement card = card(approvalId);
    String cardCss = cardCss(approvalId);
    assertThat(card.getAttribute("data-session-id")).isEqualTo(child);
    assertThat(card.findElement(By.cssSelector(".tool")).getText()).isEqualTo("forecast");
    assertThat(card.findElement(By.cssSelector("pre.arguments")).getText()).contains("Paris");
    WebElement childLink = card.findElement(By.cssSelector("a.session-link"));
    assertThat(childLink.getText()).isEqualTo(child);
    assertThat(childLink.getAttribute("href")).isEqualTo(sessionPage(child).toString());
    assertThat(texts(cardCss + " .meta .sub-agent-of"))
        .containsExactly(", a sub-agent session of " + parent);
    WebElement parentLink = card.findElement(By.cssSelector(".sub-agent-of a.parent-link"));
    assertThat(parentLink.getText()).isEqualTo(parent);
    assertThat(parentLink.getAttribute("href")).isEqualTo(sessionPage(parent).toString());
    browser.click(cardCss + " button.approve", PAGE);

    assertThat(outcome(approvalId))
        .containsIgnoringCase("approved")
        .contains(System.getProperty("user.name"));
    ApprovalRow decided = decidedApproval(approvalId);
    assertThat(decided.status()).isEqualTo(ApprovalStatus.APPROVED);
    assertThat(decided.sessionId()).isEqualTo(child);
    assertThat(decided.parentSessionId()).isEqualTo(parent);
    assertThat(decided.decidedBy()).isEqualTo(System.getProperty("user.name"));
    // The decision reached the sub-agent through the parent: its forecast ran, it answered, and
    // the parent went on to its own approval, the booking.
    RunResult booking = stack.agents.awaitRun(parent);
    assertThat(booking.status()).as(booking.toString()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(booking.approval().toolName()).isEqualTo("book_table");
    assertThat(booking.approval().sessionId()).as("the parent's own approval").isNull();
    assertThat(booking.toolCalls())
        .filteredOn(call -> call.name().equals("weather"))
        .singleElement()
        .satisfies(
            call -> {
              assertThat(call.result().get("sessionId").asText()).isEqualTo(child);
              assertThat(call.result().get("text").asText())
                  .isEqualTo("Tonight in Paris: sunny, about 21°C.");
            });
    // The inbox, on its next poll, shows the parent's own approval, not of a sub-agent session.
    WebElement bookingCard = card(booking.approval().approvalId());
    assertThat(bookingCard.getAttribute("data-session-id")).isEqualTo(parent);
    assertThat(bookingCard.findElements(By.cssSelector(".sub-agent-of"))).isEmpty();
    SessionRow childRow =
        await()
            .atMost(RUN)
            .until(
                () -> stack.projection.session(child),
                row -> row.isPresent() && row.get().status() == RunStatus.FINISHED)
            .orElseThrow();
    String callId = childRow.parentCallId();
    assertThat(callId).isNotBlank();

    // The parent's page lists its sub-agent session, which links to the child's page...
    browser.open(sessionPage(parent));
    waitForStatus("awaiting-approval");
    // Read in scripts and clicked by selector: the page rebuilds its lineage whenever it refreshes.
    String subAgent = "#lineage ul.sub-agents li a";
    browser.waitFor(subAgent, PAGE);
    assertThat(texts("#lineage ul.sub-agents li"))
        .containsExactly(child + " (agent weather, call " + callId + "): finished");
    assertThat(texts(subAgent)).containsExactly(child);
    assertThat(hrefOf(subAgent)).isEqualTo(sessionPage(child).toString());
    assertThat(browser.findAll("#lineage p.sub-agent-of")).as("the parent's own lineage").isEmpty();
    browser.click(subAgent, PAGE);

    // ...which links back to the parent, for the call that started it.
    waitForStatus("finished");
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(sessionPage(child).toString());
    String backLink = "#lineage p.sub-agent-of a";
    browser.waitFor(backLink, PAGE);
    assertThat(texts("#lineage p.sub-agent-of"))
        .containsExactly("Sub-agent session of " + parent + ", for its call " + callId);
    assertThat(texts(backLink)).containsExactly(parent);
    assertThat(hrefOf(backLink)).isEqualTo(sessionPage(parent).toString());
    assertThat(browser.findAll("#lineage ul.sub-agents")).as("the child's sub-agents").isEmpty();
    browser.waitUntil(
        PAGE,
        "the child's transcript to show the forecast's answer",
        driver ->
            texts("#transcript .message[data-role=assistant] .text")
                .contains("Tonight in Paris: sunny, about 21°C."));
    browser.click(backLink, PAGE);
    waitForStatus("awaiting-approval");
    assertThat(browser.driver().getCurrentUrl()).isEqualTo(sessionPage(parent).toString());
  }

  @Test
  void anApproverSignsInWithATokenDecides_asThemself_andSignsOut() throws IOException {
    Path tokens = dir.resolve("tokens.txt");
    Files.writeString(tokens, "dana t-dana-secret\n");
    stack = Stack.start(dir, null, UnaryOperator.identity(), ConsoleAuth.tokensFile(tokens));
    String approvalId = sendBooking("inbox-token").approval().approvalId();

    browser.open(stack.console.url());
    browser.waitFor("#login-form input[name=token]", PAGE).sendKeys("t-dana-secret");
    browser.click("#login-form button[type=submit]", PAGE);
    WebElement card = card(approvalId);
    browser.waitUntil(
        PAGE,
        "#identity to name the token's approver",
        driver -> textOf("#identity .identity-name").equals("dana"));
    assertThat(browser.driver().manage().getCookieNamed("agents_session").isHttpOnly()).isTrue();
    browser.click(cardCss(approvalId) + " button.approve", PAGE);
    assertThat(outcome(approvalId)).containsIgnoringCase("approved").contains("dana");
    assertThat(decidedApproval(approvalId).decidedBy()).isEqualTo("dana");

    browser.click("#sign-out", PAGE);
    browser.waitFor("#login-form input[name=token]", PAGE);
    assertThat(browser.driver().manage().getCookieNamed("agents_session")).isNull();
    assertThat(texts("#identity")).containsExactly("Not signed in");
  }

  @Test
  void deltasStreamIntoTheSessionPage() throws Exception {
    List<String> pieces =
        List.of("It will be sunny ", "and about 21°C tonight: ", "a light jacket ", "is plenty.");
    String streamed = String.join("", pieces);
    Path script = script("Hello! Ask me anything.", streamed);
    // The scripted model streams a turn's text as one delta: the gate hands it to the console in
    // pieces, as a streaming model would, and holds each until the page shows it, so the test sees
    // the text grow while the run is still in progress.
    PieceByPiece gate = new PieceByPiece(pieces);
    stack = Stack.start(dir, "scripted:" + script, gate::forwardingTo);
    String session = "live-1";
    RunResult first = stack.agents.send(session, "Hi");
    assertThat(first.status()).isEqualTo(RunStatus.FINISHED);

    browser.recordEventSources();
    browser.open(sessionPage(session));
    waitForStatus("finished");
    browser.waitUntil(
        PAGE, "the page's EventSource to open", driver -> browser.openEventSources() > 0);
    CompletableFuture<RunResult> run = stack.agents.sendAsync(session, "What should I wear?");

    StringBuilder expected = new StringBuilder();
    for (String piece : pieces) {
      expected.append(piece);
      awaitLiveText(expected.toString());
      assertThat(run).as("the run, while its text streams").isNotDone();
      gate.shown.release();
    }

    RunResult result = run.get(RUN.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo(streamed);
    // Once the turn is stored, the page shows it in the transcript, the record of the run.
    browser.waitFor("#timeline li[data-step='" + result.checkpointStep() + "']", PAGE);
    // The timeline shows the turn's step with the duration the worker measured.
    assertThat(texts("#timeline li[data-step='" + result.checkpointStep() + "'] .steps li"))
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .matches("model \\S+ · \\d+(\\.\\d+)? (ms|s) · [\\d,]+ / [\\d,]+ tokens");
    browser.waitUntil(
        PAGE,
        "the transcript to show the streamed answer",
        driver -> texts("#transcript .message[data-role=assistant] .text").contains(streamed));
    waitForStatus("finished");
  }

  @Test
  void theAnswerAfterAnApproval_keepsItsStreamedTextWhenTheCheckpointBeforeItArrives()
      throws Exception {
    // The concierge's last turn, the answer after book_table ran.
    List<String> pieces =
        List.of(
            "Done: a table for 2 ",
            "at Le Petit Zinc tonight at 19:30 ",
            "is booked. ",
            "Expect a mild, sunny evening.");
    PieceByPiece gate = new PieceByPiece(pieces);
    stack = Stack.start(dir, null, gate::forwardingTo);
    String session = "live-approved";
    RunResult paused = sendBooking(session);

    browser.recordEventSources();
    browser.open(sessionPage(session));
    waitForStatus("awaiting-approval");
    browser.waitUntil(
        PAGE, "the page's EventSource to open", driver -> browser.openEventSources() > 0);
    stack.agents.approve(session, paused.approval().approvalId());
    CompletableFuture<RunResult> run = stack.agents.awaitRunAsync(session);

    // The pause was saved by the workflow, so the turn after the call writes the call's
    // checkpoint before the model answers: it reaches the page while the answer streams.
    await().atMost(PAGE).until(() -> gate.step.get() > 0);
    int written =
        stack.projection.history(session, 10).stream()
            .mapToInt(HistoryEntry::step)
            .max()
            .orElseThrow();
    assertThat(written)
        .as("the checkpoint written before the streaming turn")
        .isGreaterThan(paused.checkpointStep())
        .isLessThan(gate.step.get());
    browser.waitFor("#timeline li[data-step='" + written + "']", PAGE);
    assertThat(run).as("the run, while its answer streams").isNotDone();
    assertThat(liveText())
        .as(
            "#live once the checkpoint of step %d (before the streaming turn, step %d) is shown",
            written, gate.step.get())
        .isEqualTo(pieces.get(0));

    StringBuilder expected = new StringBuilder(pieces.get(0));
    gate.shown.release();
    for (String piece : pieces.subList(1, pieces.size())) {
      expected.append(piece);
      awaitLiveText(expected.toString());
      gate.shown.release();
    }
    RunResult result = run.get(RUN.toSeconds(), TimeUnit.SECONDS);
    assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(result.text()).isEqualTo(String.join("", pieces));
    browser.waitUntil(
        PAGE,
        "the transcript to show the answer",
        driver -> texts("#transcript .message[data-role=assistant] .text").contains(result.text()));
    waitForStatus("finished");
  }

  @Test
  void theSessionPageResetsClosesAndDeletesTheSession() throws Exception {
    Path script =
        Files.writeString(
            dir.resolve("answers.json"),
            "{\"turns\": [{\"text\": \"One.\"}, {\"text\": \"Two.\"}, {\"text\": \"Three.\"}]}");
    stack = Stack.start(dir, "scripted:" + script, UnaryOperator.identity());
    String session = "page-lifecycle";
    stack.agents.send(session, "hello");
    stack.agents.send(session, "more");
    // The newest entry of run 1, whose transcript is "hello", "One.".
    int step =
        stack.projection.history(session, 0).stream()
            .filter(entry -> entry.checkpoint().messages().size() == 2)
            .mapToInt(HistoryEntry::step)
            .max()
            .orElseThrow();
    int newest = stack.projection.history(session, 1).get(0).step();

    browser.open(sessionPage(session));
    // Clicked by selector: the timeline is rebuilt whenever the page refreshes (its first load
    // and the session's events can each refresh it), which can replace a button found before.
    browser.click("#timeline li[data-step='" + step + "'] button.reset-here", PAGE);
    acceptConfirm();

    awaitResult("Reset to step " + step);
    assertThat(stack.agents.status(session).orElseThrow().resetTo()).isEqualTo(step);
    browser.waitUntil(
        PAGE,
        "the timeline to mark step " + newest + " superseded",
        driver ->
            texts("#timeline li.superseded[data-step='" + newest + "'] .entry-superseded").stream()
                .anyMatch(line -> line.startsWith("superseded by the reset to step " + step)));
    // A superseded entry offers neither a fork nor a reset.
    assertThat(browser.findAll("#timeline li[data-step='" + newest + "'] button")).isEmpty();
    assertThat(stack.agents.send(session, "again").text()).isEqualTo("Two.");

    browser.click("#close-session", PAGE);
    acceptConfirm();
    awaitResult("Closed.");
    assertThat(stack.agents.status(session).orElseThrow().lifecycle())
        .isEqualTo(io.durableagents.session.SessionLifecycle.CLOSED);

    browser.click("#delete-session", PAGE);
    acceptConfirm();
    awaitResult("Deleted.");
    assertThat(stack.agents.status(session)).isEmpty();
    assertThat(stack.projection.session(session)).isEmpty();
  }

  /** Accepts the confirmation the page asks for, once it shows. */
  private void acceptConfirm() {
    browser.waitUntil(
        PAGE,
        "a confirmation dialog",
        driver -> {
          try {
            driver.switchTo().alert().accept();
            return true;
          } catch (NoAlertPresentException e) {
            return false;
          }
        });
  }

  private void awaitResult(String text) {
    browser.waitUntil(
        RUN, "#send-result to read " + text, driver -> textOf("#send-result").contains(text));
  }

  @Test
  void aScriptTagInTheTranscriptRunsNoScript() throws Exception {
    // No double quotes: the pages show arguments as JSON, which would escape them.
    String scriptTag = "<script>alert(window.__xss = 1)</script>";
    String imgTag = "<img src=x onerror=alert(window.__xss=2)>";
    String answer = "You said " + scriptTag + " and " + imgTag;
    // The model answers with both and asks to book a table whose name is markup too, so the
    // inbox shows the payloads in its arguments and conversation.
    Path script =
        script(
            List.of(
                Map.of(
                    "text",
                    answer,
                    "toolCalls",
                    List.of(
                        Map.of(
                            "name",
                            "book_table",
                            "arguments",
                            Map.of("restaurant", imgTag, "people", 2, "time", "19:30"))))));
    stack = Stack.start(dir, "scripted:" + script, UnaryOperator.identity());

    for (String payload : List.of(scriptTag, imgTag)) {
      String session = payload.equals(scriptTag) ? "xss-script" : "xss-img";
      assertThat(stack.agents.send(session, payload).status())
          .isEqualTo(RunStatus.AWAITING_APPROVAL);

      browser.open(sessionPage(session));
      browser.waitFor("#transcript .message[data-role=assistant] .text", PAGE);
      assertNoScriptRan(session);
      assertThat(texts("#transcript .message[data-role=user] .text")).contains(payload);
      assertThat(texts("#transcript .message[data-role=assistant] .text")).contains(answer);
      assertThat(texts("#transcript .tool-call")).anyMatch(call -> call.contains(imgTag));
      assertThat(browser.findAll("#transcript script")).isEmpty();
      assertThat(browser.findAll("#transcript img")).isEmpty();
    }

    browser.open(stack.console.url());
    browser.waitUntil(
        PAGE, "two approval cards", driver -> browser.findAll("article.approval").size() == 2);
    assertNoScriptRan("the inbox");
    assertThat(texts("article.approval pre.arguments")).allMatch(args -> args.contains(imgTag));
    assertThat(texts("article.approval .conversation"))
        .anyMatch(conversation -> conversation.contains(scriptTag))
        .anyMatch(conversation -> conversation.contains(imgTag));
    assertThat(browser.findAll("article.approval script")).isEmpty();
    assertThat(browser.findAll("article.approval img")).isEmpty();
  }

  /** No alert is open and the payloads' marker is unset: the page ran none of their script. */
  private void assertNoScriptRan(String where) {
    assertThatThrownBy(() -> browser.driver().switchTo().alert())
        .as("an alert opened by " + where)
        .isInstanceOf(NoAlertPresentException.class);
    assertThat(browser.script("return typeof window.__xss;"))
        .as("window.__xss, set by the payloads' script, on " + where)
        .isEqualTo("undefined");
  }

  @Test
  void screenshotsOfTheInboxAndASessionPage() throws Exception {
    stack = Stack.start(dir, null, UnaryOperator.identity());
    // A finished conversation for the session page: booked with approval, then a follow-up.
    String booked = "demo-1";
    RunResult paused = sendBooking(booked);
    stack.agents.approve(booked, paused.approval().approvalId());
    assertThat(stack.agents.awaitRun(booked).status()).isEqualTo(RunStatus.FINISHED);
    assertThat(stack.agents.send(booked, "Thanks! What should I wear?").status())
        .isEqualTo(RunStatus.FINISHED);
    // And one waiting in the inbox.
    RunResult pending = sendBooking("chat-42");

    browser.open(stack.console.url());
    waitForConversation(card(pending.approval().approvalId()));
    save(browser.screenshot(SCREENSHOTS.resolve("console-inbox.png")));

    browser.open(sessionPage(booked));
    waitForStatus("finished");
    browser.waitFor("#business-state", PAGE);
    browser.waitFor("#timeline li[data-step]", PAGE);
    browser.waitFor("#transcript .tool-call", PAGE);
    save(browser.screenshot(SCREENSHOTS.resolve("console-session.png")));
  }

  /** A model script file whose turns answer these texts, in order. */
  private Path script(String... answers) throws IOException {
    return script(Arrays.stream(answers).map(text -> Map.of("text", text)).toList());
  }

  /** A model script file of these turns (see ScriptedModelProvider). */
  private Path script(List<? extends Map<String, ?>> turns) throws IOException {
    return Files.writeString(
        dir.resolve("script.json"), new ObjectMapper().writeValueAsString(Map.of("turns", turns)));
  }

  private RunResult sendBooking(String session) {
    RunResult paused =
        stack.agents.send(
            session, BOOKING, SendOptions.newBuilder().setAgent(ConciergeAgent.NAME).build());
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    assertThat(paused.approval().toolName()).isEqualTo("book_table");
    return paused;
  }

  /** The page of a session, its id encoded as the pages' links encode it. */
  private URI sessionPage(String session) {
    return stack.console.url().resolve("sessions/" + URLEncoder.encode(session, UTF_8));
  }

  /** The inbox card of an approval, once the page shows it. */
  /** Waits for the live delta text of the session page to read {@code text}. */
  private void awaitLiveText(String text) {
    browser.waitUntil(
        PAGE,
        () -> "#live .delta-text to read \"" + text + "\", not \"" + liveText() + "\"",
        driver -> liveText().equals(text));
  }

  private WebElement card(String approvalId) {
    return browser.waitFor(cardCss(approvalId), PAGE);
  }

  /** The selector of an approval's inbox card. */
  private static String cardCss(String approvalId) {
    return "article.approval[data-approval-id='" + approvalId + "']";
  }

  /** The resolved {@code href} of the first element matching {@code css}, read in one script. */
  private String hrefOf(String css) {
    return (String)
        browser.script(
            "const e = document.querySelector(arguments[0]); return e ? e.href : null;", css);
  }

  /**
   * The outcome a card shows once its approval is decided (the element is there before, empty, and
   * reads "Approving…" while the decision is sent).
   */
  private String outcome(String approvalId) {
    String css = "article.approval[data-approval-id='" + approvalId + "'] .outcome";
    return browser.waitUntil(
        PAGE,
        () -> css + " to show the decision, not \"" + textOf(css) + "\"",
        driver -> {
          String text = textOf(css);
          return text.matches("(?is).*\\b(approved|rejected)\\b.*") ? text : null;
        });
  }

  private String textOf(String css) {
    List<String> found = texts(css);
    return found.isEmpty() ? "" : found.get(0);
  }

  /** Waits for a card's conversation, which loads after the card, to show the booking request. */
  private void waitForConversation(WebElement card) {
    browser.waitUntil(
        PAGE,
        "the card's conversation to show the booking request",
        driver -> card.findElement(By.cssSelector(".conversation")).getText().contains(BOOKING));
  }

  /** The projection's row of an approval, once it records the decision. */
  private ApprovalRow decidedApproval(String approvalId) {
    return await()
        .atMost(RUN)
        .until(
            () ->
                stack.projection.approvals(false).stream()
                    .filter(row -> row.approvalId().equals(approvalId))
                    .findFirst(),
            row -> row.isPresent() && !row.get().isPending())
        .orElseThrow();
  }

  private void waitForStatus(String status) {
    browser.waitUntil(
        PAGE,
        "#session-status to read " + status,
        driver -> {
          List<WebElement> element = browser.findAll("#session-status");
          return !element.isEmpty()
              && element.get(0).getText().strip().equals(status)
              && status.equals(element.get(0).getAttribute("data-status"));
        });
  }

  private String liveText() {
    return String.valueOf(
        browser.script(
            "return Array.from(document.querySelectorAll('#live span.delta-text'))"
                + ".map(e => e.textContent).join('');"));
  }

  /**
   * The text of every element matching {@code css}, read in one script: the pages rebuild the
   * transcript on every checkpoint, so elements found in one call can be gone by the next.
   */
  private List<String> texts(String css) {
    Object texts =
        browser.script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(e => e.textContent);",
            css);
    return ((List<?>) texts).stream().map(String::valueOf).toList();
  }

  /** Copies a screenshot to the directory {@code -Dconsole.screenshots} names, if it names one. */
  private static void save(Path screenshot) throws IOException {
    String target = System.getProperty("console.screenshots");
    if (target != null && !target.isBlank()) {
      Path directory = Path.of(target);
      Files.createDirectories(directory);
      Files.copy(
          screenshot,
          directory.resolve(screenshot.getFileName()),
          StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /**
   * A worker of its own task queue and projection, an agent client and the console over them. The
   * worker's deltas go to the console through {@code listener} applied to the console's listener.
   */
  private record Stack(
      AgentWorker worker,
      ProjectionReader projection,
      AgentClient agents,
      AgentConsole console,
      AgentsFile agentsFile)
      implements AutoCloseable {

    static Stack start(Path dir, String modelSpec, UnaryOperator<DeltaListener> listener) {
      return start(dir, modelSpec, listener, ConsoleAuth.local());
    }

    static Stack start(
        Path dir, String modelSpec, UnaryOperator<DeltaListener> listener, ConsoleAuth auth) {
      return start(dir, modelSpec, listener, auth, null);
    }

    /** A stack whose worker serves the agents of {@code agentsFile} (null: the demo agent). */
    static Stack start(
        Path dir,
        String modelSpec,
        UnaryOperator<DeltaListener> listener,
        ConsoleAuth auth,
        AgentsFile agentsFile) {
      int number = stacks.incrementAndGet();
      String taskQueue = "console-browser-" + number;
      String projectionUrl = "jdbc:sqlite:" + dir.resolve("projection-" + number + ".db");
      // The console needs the worker's client, so its listener is attached once both run.
      ConsoleDeltaListener toConsole = ConsoleDeltaListener.unattached();
      AgentWorker worker =
          AgentWorker.start(
              new WorkerConfig(
                      server.address(),
                      WorkerConfig.DEFAULT_NAMESPACE,
                      taskQueue,
                      projectionUrl,
                      modelSpec)
                  .withAgents(agentsFile),
              List.of(listener.apply(toConsole)));
      ProjectionReader projection = null;
      try {
        projection = ProjectionReader.open(projectionUrl);
        AgentClient agents =
            AgentClient.newInstance(
                worker.client(),
                AgentClientOptions.newBuilder()
                    .setTaskQueue(taskQueue)
                    .setProjection(projection)
                    .build());
        AgentConsole console =
            AgentConsole.start(
                agents,
                projection,
                ConsoleOptions.newBuilder()
                    .setBind("127.0.0.1")
                    .setPort(0)
                    .setAuthentication(auth)
                    .setTemporalUiUrl("http://127.0.0.1:8233")
                    .build());
        toConsole.attach(console);
        return new Stack(worker, projection, agents, console, agentsFile);
      } catch (RuntimeException e) {
        if (projection != null) {
          projection.close();
        }
        worker.close();
        closeMcpServers(agentsFile);
        throw e;
      }
    }

    @Override
    public void close() {
      try {
        console.close();
      } finally {
        try {
          worker.close();
        } finally {
          try {
            projection.close();
          } finally {
            closeMcpServers(agentsFile);
          }
        }
      }
    }

    /** Stops the agents file's MCP servers (the stdio ones are processes of this JVM's). */
    private static void closeMcpServers(AgentsFile agentsFile) {
      if (agentsFile != null) {
        agentsFile.mcpServers().forEach(McpToolProvider::close);
      }
    }
  }

  /**
   * Hands a delta whose text is the pieces joined to the next listener piece by piece (with the
   * delta's session, step and attempt), waiting after each until the test has seen it ({@link
   * #shown}), at most five seconds a piece (the model activity's heartbeat timeout is ten; a piece
   * the page shows takes a fraction of a second).
   */
  private static final class PieceByPiece implements DeltaListener {
    final Semaphore shown = new Semaphore(0);
    final AtomicInteger step = new AtomicInteger(-1);
    private final List<String> pieces;
    private volatile DeltaListener next;

    PieceByPiece(List<String> pieces) {
      this.pieces = List.copyOf(pieces);
    }

    DeltaListener forwardingTo(DeltaListener next) {
      this.next = next;
      return this;
    }

    @Override
    public void onDelta(Delta delta) {
      if (!delta.text().equals(String.join("", pieces))) {
        next.onDelta(delta);
        return;
      }
      step.set(delta.step());
      for (String piece : pieces) {
        next.onDelta(
            new Delta(delta.sessionId(), delta.step(), delta.attempt(), delta.kind(), piece));
        try {
          if (!shown.tryAcquire(5, TimeUnit.SECONDS)) {
            return; // the test fails on its own wait; the run must not hang on it
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }
}
