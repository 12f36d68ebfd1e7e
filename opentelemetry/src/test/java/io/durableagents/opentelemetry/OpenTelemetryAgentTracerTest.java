package io.durableagents.opentelemetry;

import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.AGENT;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.CONVERSATION_ID;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.ERROR_TYPE;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.FINISH_REASONS;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.INPUT_MESSAGES;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.INPUT_TOKENS;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.OPERATION_NAME;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.OUTPUT_MESSAGES;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.OUTPUT_TOKENS;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.PROVIDER_NAME;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.REQUEST_MODEL;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.STEP;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.SYSTEM_INSTRUCTIONS;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.TOOL_CALL_ARGUMENTS;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.TOOL_CALL_ID;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.TOOL_CALL_RESULT;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.TOOL_NAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.durableagents.client.AgentClient;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.session.RunStatus;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spans of the demo agent's sessions on the in-memory Temporal, exported in memory: their
 * names, their parents (Temporal's activity spans, up to the session workflow's, in one trace) and
 * their attributes, with and without content.
 */
class OpenTelemetryAgentTracerTest {
  private static final String REQUEST = "Dinner in Paris for two at 19:30, please.";

  private static final AttributeKey<String> WORKFLOW_ID = AttributeKey.stringKey("workflowId");

  private static final List<AttributeKey<String>> CONTENT =
      List.of(
          SYSTEM_INSTRUCTIONS,
          INPUT_MESSAGES,
          OUTPUT_MESSAGES,
          TOOL_CALL_ARGUMENTS,
          TOOL_CALL_RESULT);

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  // No propagators: Temporal's headers must carry the span context all the same (W3C).
  private final OpenTelemetrySdk openTelemetry =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();

  @TempDir Path directory;

  @AfterEach
  void closeSdk() {
    openTelemetry.close();
  }

  @Test
  void anApprovedSession_isOneTrace_withItsTurnsAndCallsUnderTemporalsActivitySpans() {
    try (TracedAgents agents =
        new TracedAgents(
            directory,
            openTelemetry,
            OpenTelemetryAgentTracer.of(openTelemetry),
            ConciergeAgent.defaultScript())) {
      AgentClient client = agents.client();
      RunResult paused = client.send("trip-1", REQUEST);
      assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
      client.approve("trip-1", paused.approval().approvalId());
      assertThat(client.awaitRun("trip-1").status()).isEqualTo(RunStatus.FINISHED);
      // The session workflow ends, and with it its span.
      client.close("trip-1");
    }
    Map<String, SpanData> byId = byId();
    List<SpanData> turns = named("chat scripted");
    List<SpanData> calls = operation("execute_tool");

    assertThat(turns)
        .extracting(
            s -> s.getAttributes().get(STEP),
            s -> s.getAttributes().get(INPUT_TOKENS),
            s -> s.getAttributes().get(OUTPUT_TOKENS),
            s -> s.getAttributes().get(FINISH_REASONS))
        .containsExactly(
            tuple(1L, 182L, 41L, List.of("tool-calls")),
            tuple(3L, 265L, 38L, List.of("tool-calls")),
            tuple(6L, 318L, 27L, List.of("stop")));
    assertThat(turns)
        .allSatisfy(
            turn -> {
              assertThat(turn.getKind()).isEqualTo(SpanKind.CLIENT);
              assertThat(turn.getAttributes().get(OPERATION_NAME)).isEqualTo("chat");
              assertThat(turn.getAttributes().get(PROVIDER_NAME)).isEqualTo("scripted");
              assertThat(turn.getAttributes().get(REQUEST_MODEL)).isEqualTo("scripted");
              assertThat(turn.getAttributes().get(AGENT)).isEqualTo(ConciergeAgent.NAME);
              assertThat(turn.getAttributes().get(CONVERSATION_ID)).isEqualTo("trip-1");
              assertThat(turn.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
              assertThat(ancestors(turn, byId))
                  .startsWith("RunActivity:agents.ModelTurn", "StartActivity:agents.ModelTurn");
            });

    assertThat(calls)
        .extracting(SpanData::getName, s -> s.getAttributes().get(TOOL_CALL_ID))
        .containsExactlyInAnyOrder(
            tuple("execute_tool get_weather", "call_0_0"),
            tuple("execute_tool find_restaurant", "call_0_1"),
            tuple("execute_tool book_table", "call_1_0"));
    assertThat(calls)
        .allSatisfy(
            call -> {
              assertThat(call.getName())
                  .isEqualTo("execute_tool " + call.getAttributes().get(TOOL_NAME));
              assertThat(call.getAttributes().get(AGENT)).isEqualTo(ConciergeAgent.NAME);
              assertThat(call.getAttributes().get(CONVERSATION_ID)).isEqualTo("trip-1");
              assertThat(call.getAttributes().get(ERROR_TYPE)).isNull();
              assertThat(call.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
              assertThat(ancestors(call, byId))
                  .startsWith("RunActivity:agents.ExecuteTool", "StartActivity:agents.ExecuteTool");
            });

    List<SpanData> ours = new ArrayList<>(turns);
    ours.addAll(calls);
    // The worker's warm-up replays a workflow of its own at start: the session's is trip-1's.
    SpanData workflow =
        named("RunWorkflow:AgentSession").stream()
            .filter(s -> "trip-1".equals(s.getAttributes().get(WORKFLOW_ID)))
            .findFirst()
            .orElseThrow();
    assertThat(ours)
        .as("every turn and call, the approved one too, under the session's workflow span")
        .allSatisfy(
            span -> {
              assertThat(span.getTraceId()).isEqualTo(workflow.getTraceId());
              assertThat(ancestors(span, byId))
                  .containsSubsequence(
                      "RunWorkflow:AgentSession", "UpdateWithStartWorkflow:AgentSession");
              assertThat(span.getAttributes().asMap().keySet())
                  .doesNotContainAnyElementsOf(CONTENT);
            });
  }

  @Test
  void content_isRecordedWhenEnabled_andCutAtItsLimit() {
    int limit = 400;
    try (TracedAgents agents =
        new TracedAgents(
            directory,
            openTelemetry,
            OpenTelemetryAgentTracer.newBuilder(openTelemetry)
                .setCaptureContent(true)
                .setMaxContentChars(limit)
                .build(),
            ConciergeAgent.defaultScript())) {
      assertThat(agents.client().send("trip-2", REQUEST).status())
          .isEqualTo(RunStatus.AWAITING_APPROVAL);
    }
    List<SpanData> turns = named("chat scripted");
    assertThat(turns).hasSize(2);
    SpanData first = turns.get(0);
    assertThat(first.getAttributes().get(SYSTEM_INSTRUCTIONS))
        .isEqualTo(
            "[{\"type\":\"text\",\"content\":\"You are a concierge. Check the weather, find a"
                + " restaurant and book a table. Confirm bookings with their reference.\"}]");
    assertThat(first.getAttributes().get(INPUT_MESSAGES))
        .isEqualTo(
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\""
                + REQUEST
                + "\"}]}]");
    assertThat(first.getAttributes().get(OUTPUT_MESSAGES))
        .startsWith(
            "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"Let me check the"
                + " weather and look for a table.\"},{\"type\":\"tool_call\",\"id\":\"call_0_0\","
                + "\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"}}");
    assertThat(turns.get(1).getAttributes().get(INPUT_MESSAGES))
        .as("the second turn's messages, with both calls and their results: over the limit, so cut")
        .contains("\"type\":\"tool_call\",\"id\":\"call_0_1\",\"name\":\"find_restaurant\"")
        .hasSize(limit + 1)
        .endsWith("…");

    SpanData weather = named("execute_tool get_weather").get(0);
    assertThat(weather.getAttributes().get(TOOL_CALL_ARGUMENTS)).isEqualTo("{\"city\":\"Paris\"}");
    assertThat(weather.getAttributes().get(TOOL_CALL_RESULT)).contains("\"city\":\"Paris\"");
    assertThat(named("execute_tool find_restaurant").get(0).getAttributes().get(TOOL_CALL_RESULT))
        .contains("Le Petit Zinc");
  }

  @Test
  void aFailedTurn_isAnErrorSpanNamingItsType_underItsActivitySpan() {
    try (TracedAgents agents =
        new TracedAgents(
            directory,
            openTelemetry,
            OpenTelemetryAgentTracer.of(openTelemetry),
            ScriptedModelProvider.fromJson("{\"turns\": [{\"error\": \"the model is down\"}]}"))) {
      assertThat(agents.client().send("trip-3", "hello").status()).isEqualTo(RunStatus.FAILED);
    }
    List<SpanData> turns = named("chat scripted");
    assertThat(turns).hasSize(1);
    SpanData turn = turns.get(0);
    assertThat(turn.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(turn.getStatus().getDescription()).contains("the model is down");
    assertThat(turn.getAttributes().get(ERROR_TYPE)).isEqualTo("model_error");
    assertThat(turn.getAttributes().get(INPUT_TOKENS)).isNull();
    assertThat(turn.getAttributes().get(FINISH_REASONS)).isNull();
    assertThat(ancestors(turn, byId())).startsWith("RunActivity:agents.ModelTurn");
  }

  @Test
  void theProviderIsNamedByItsClass_orByTheGivenFunction() {
    ModelProvider lambda = (request, stream) -> null;
    assertThat(OpenTelemetryAgentTracer.providerNameOf(ConciergeAgent.defaultScript()))
        .isEqualTo("scripted");
    assertThat(OpenTelemetryAgentTracer.providerNameOf(lambda)).isEqualTo("unknown");
  }

  /** The finished spans by id. */
  private Map<String, SpanData> byId() {
    return exporter.getFinishedSpanItems().stream()
        .collect(Collectors.toMap(SpanData::getSpanId, Function.identity()));
  }

  /** The finished spans named {@code name}, in the order they started. */
  private List<SpanData> named(String name) {
    return started(s -> name.equals(s.getName()));
  }

  /** The finished spans of GenAI operation {@code operation}, in the order they started. */
  private List<SpanData> operation(String operation) {
    return started(s -> operation.equals(s.getAttributes().get(OPERATION_NAME)));
  }

  private List<SpanData> started(java.util.function.Predicate<SpanData> filter) {
    return exporter.getFinishedSpanItems().stream()
        .filter(filter)
        .sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos))
        .toList();
  }

  /** The names of {@code span}'s ancestors, parent first, as far as they were exported. */
  private static List<String> ancestors(SpanData span, Map<String, SpanData> byId) {
    List<String> names = new ArrayList<>();
    SpanData parent = byId.get(span.getParentSpanId());
    while (parent != null) {
      assertThat(parent.getTraceId()).isEqualTo(span.getTraceId());
      names.add(parent.getName());
      parent = byId.get(parent.getParentSpanId());
    }
    return names;
  }
}
