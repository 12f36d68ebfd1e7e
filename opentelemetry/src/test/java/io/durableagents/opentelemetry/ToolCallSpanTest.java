package io.durableagents.opentelemetry;

import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.ERROR_TYPE;
import static io.durableagents.opentelemetry.OpenTelemetryAgentTracer.TOOL_CALL_RESULT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.tracing.ToolCallTrace;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a tool call's span ends: with an error result or a failed attempt it is an error naming the
 * code; either way it is current while the call runs and not after.
 */
class ToolCallSpanTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk openTelemetry =
      OpenTelemetrySdk.builder()
          .setTracerProvider(
              SdkTracerProvider.builder()
                  .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                  .build())
          .build();
  private final OpenTelemetryAgentTracer tracer =
      OpenTelemetryAgentTracer.newBuilder(openTelemetry).setCaptureContent(true).build();

  @AfterEach
  void closeSdk() {
    openTelemetry.close();
  }

  @Test
  void anErrorResult_isAnErrorSpanWithItsCodeAndMessage() throws Exception {
    ToolCallTrace trace = tracer.toolCall("s-1", "concierge", "book_table", "call_1", null);
    String current = Span.current().getSpanContext().getSpanId();
    trace.ended(
        JSON.readTree("{\"error\": \"tool_error\", \"message\": \"no table left\"}"), "tool_error");

    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(current).as("current while the call runs").isEqualTo(span.getSpanId());
    assertThat(Span.current().getSpanContext().isValid()).as("not current after it").isFalse();
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getStatus().getDescription()).isEqualTo("no table left");
    assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("tool_error");
    assertThat(span.getAttributes().get(TOOL_CALL_RESULT))
        .isEqualTo("{\"error\":\"tool_error\",\"message\":\"no table left\"}");
  }

  @Test
  void aFailedAttempt_isAnErrorSpanWithItsFailureType() {
    tracer
        .toolCall("s-1", "concierge", "book_table", "call_1", null)
        .failed("tool_transient", "Tool 'book_table' failed: connection reset");

    SpanData span = exporter.getFinishedSpanItems().get(0);
    assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(span.getStatus().getDescription()).contains("connection reset");
    assertThat(span.getAttributes().get(ERROR_TYPE)).isEqualTo("tool_transient");
    assertThat(span.getAttributes().get(TOOL_CALL_RESULT)).isNull();
  }
}
