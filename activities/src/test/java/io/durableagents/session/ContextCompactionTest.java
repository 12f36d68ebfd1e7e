package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.agent.CompactionPolicy;
import io.durableagents.agent.ContextOptions;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.tools.Tool;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.RunResult;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A long session against a model with a context window (the scripted model refuses a longer request
 * with {@code context_exceeded}, as a real one does): without compaction its runs fail for good
 * once the transcript outgrows the window; with it every run finishes, the model's view is
 * shortened, the transcript keeps every message and the entries record each compaction.
 */
class ContextCompactionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int RUNS = 40;
  private static final int WINDOW = 6_000;

  @TempDir Path dir;

  /** Each run: one echo call with {@code argChars} of text, then a short answer. */
  private static ScriptedModelProvider script(int argChars) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode turns = root.putArray("turns");
    for (int run = 0; run < RUNS; run++) {
      ObjectNode call = turns.addObject();
      call.putArray("toolCalls")
          .addObject()
          .put("name", "echo")
          .putObject("arguments")
          .put("text", run + " " + "e".repeat(argChars));
      turns.addObject().put("text", "answer " + run);
    }
    return ScriptedModelProvider.fromJson(root.toString()).withContextWindow(WINDOW);
  }

  private static String message(int run, int chars) {
    return "message " + run + ": " + "m".repeat(chars);
  }

  private SessionTestKit kit(
      ScriptedModelProvider model, UnaryOperator<ContextOptions.Builder> context) {
    return new SessionTestKit(
        dir,
        model,
        agent ->
            agent
                .setMaxSteps(5)
                .setContextOptions(context.apply(ContextOptions.newBuilder()).build()),
        WorkerFactoryOptions.newBuilder());
  }

  @Test
  void withoutCompaction_theSessionOutgrowsTheWindow_andEveryLaterRunFails() {
    try (SessionTestKit kit = kit(script(1_500), c -> c.setCompaction())) {
      List<RunStatus> statuses = new ArrayList<>();
      RunResult last = null;
      for (int run = 0; run < 8; run++) {
        last = kit.send("nc-1", message(run, 1_500));
        statuses.add(last.status());
      }
      assertThat(statuses).startsWith(RunStatus.FINISHED).endsWith(RunStatus.FAILED);
      assertThat(last.error().code()).isEqualTo(FailureTypes.CONTEXT_EXCEEDED);
    }
  }

  @Test
  void withTheDefaultPolicies_everyRunOfALongSessionFinishes_andTheTranscriptKeepsEverything() {
    try (SessionTestKit kit = kit(script(1_500), c -> c.setContextWindow(WINDOW))) {
      for (int run = 0; run < RUNS; run++) {
        RunResult result = kit.send("long-1", message(run, 1_500));
        assertThat(result.status())
            .as("run %d: %s", run + 1, result.error())
            .isEqualTo(RunStatus.FINISHED);
        assertThat(result.text()).isEqualTo("answer " + run);
      }
      List<Message> transcript = kit.store.readMessages("long-1", RUNS * 4);
      assertThat(transcript).hasSize(RUNS * 4);
      assertThat(transcript.get(2).role()).isEqualTo(Role.TOOL);
      assertThat(transcript.get(2).result().get("echo").asText()).startsWith("0 eee");

      List<StepRecord> compactions = compactions(kit, "long-1");
      assertThat(compactions).isNotEmpty().hasSizeLessThan(RUNS);
      assertThat(compactions)
          .allSatisfy(
              step -> {
                assertThat(step.name()).matches("(clear-tool-results|window)(, window)?");
                assertThat(step.text()).contains("tokens");
              });
      assertThat(compactions).anyMatch(step -> step.name().contains("window"));
    }
  }

  @Test
  void clearingToolResults_alone_keepsASessionOfLongResultsGoing() {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode turns = root.putArray("turns");
    for (int run = 0; run < RUNS; run++) {
      turns
          .addObject()
          .putArray("toolCalls")
          .addObject()
          .put("name", "fetch")
          .putObject("arguments")
          .put("page", run);
      turns.addObject().put("text", "answer " + run);
    }
    Tool fetch =
        Tool.newBuilder("fetch")
            .setDescription("Fetches a long page.")
            .setHandler(
                (args, ctx) -> Map.of("page", args.path("page").asInt() + "p".repeat(4_000)))
            .build();
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            ScriptedModelProvider.fromJson(root.toString()).withContextWindow(WINDOW),
            agent ->
                agent
                    .setTools(fetch)
                    .setContextOptions(
                        ContextOptions.newBuilder()
                            .setContextWindow(WINDOW)
                            .setCompaction(CompactionPolicy.CLEAR_TOOL_RESULTS)
                            .build()),
            WorkerFactoryOptions.newBuilder())) {
      for (int run = 0; run < RUNS; run++) {
        RunResult result = kit.send("clear-1", "short question " + run);
        assertThat(result.status())
            .as("run %d: %s", run + 1, result.error())
            .isEqualTo(RunStatus.FINISHED);
      }
      assertThat(compactions(kit, "clear-1"))
          .isNotEmpty()
          .allSatisfy(step -> assertThat(step.name()).isEqualTo("clear-tool-results"));
    }
  }

  @Test
  void anUnknownWindow_isLearnedFromTheProvidersRefusal_andTheTurnIsSentAgain() {
    // "scripted" is no known model family: the agent's window is unknown until the model refuses.
    try (SessionTestKit kit = kit(script(1_500), c -> c)) {
      for (int run = 0; run < 15; run++) {
        RunResult result = kit.send("learn-1", message(run, 1_500));
        assertThat(result.status())
            .as("run %d: %s", run + 1, result.error())
            .isEqualTo(RunStatus.FINISHED);
      }
      assertThat(compactions(kit, "learn-1"))
          .anyMatch(step -> step.text().contains("after the provider refused a longer one"));
    }
  }

  private static List<StepRecord> compactions(SessionTestKit kit, String sessionId) {
    List<StepRecord> found = new ArrayList<>();
    for (Map.Entry<Integer, List<StepRecord>> entry :
        kit.store.steps(sessionId, 0, Integer.MAX_VALUE).entrySet()) {
      for (StepRecord step : entry.getValue()) {
        if (StepRecord.COMPACTION.equals(step.kind())) {
          found.add(step);
        }
      }
    }
    return found;
  }
}
