package io.durableagents.opentelemetry;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.opentracingshim.OpenTracingShim;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkflowClientInterceptor;
import io.temporal.opentracing.OpenTracingClientInterceptor;
import io.temporal.opentracing.OpenTracingOptions;
import io.temporal.opentracing.OpenTracingWorkerInterceptor;

/**
 * Temporal's own spans, recorded with OpenTelemetry: the interceptors of {@code
 * temporal-opentracing} over OpenTelemetry's OpenTracing shim. The client's interceptor opens a
 * span for each start, signal and update it sends and passes its context to the workflow in
 * Temporal's headers; the worker's opens {@code RunWorkflow:...}, {@code StartActivity:...} and
 * {@code RunActivity:...} spans under it. The shim keeps the active span in OpenTelemetry's {@code
 * Context}, so the spans of {@link OpenTelemetryAgentTracer}, opened inside the activities, become
 * children of their {@code RunActivity:...} span: one trace per client call.
 *
 * <pre>{@code
 * WorkflowClientOptions.newBuilder()
 *     .setInterceptors(TemporalTracing.clientInterceptor(openTelemetry))
 * WorkerFactoryOptions.newBuilder()
 *     .setWorkerInterceptors(TemporalTracing.workerInterceptor(openTelemetry))
 * }</pre>
 *
 * <p>The span context crosses Temporal's headers with the {@code OpenTelemetry}'s text-map
 * propagator, or W3C trace context when it has none (a bare SDK built without propagators).
 */
public final class TemporalTracing {
  private TemporalTracing() {}

  /** The interceptor for the {@code WorkerFactoryOptions} of the workers that run the plugin. */
  public static WorkerInterceptor workerInterceptor(OpenTelemetry openTelemetry) {
    return new OpenTracingWorkerInterceptor(options(openTelemetry));
  }

  /** The interceptor for the {@code WorkflowClientOptions} of the client that sends messages. */
  public static WorkflowClientInterceptor clientInterceptor(OpenTelemetry openTelemetry) {
    return new OpenTracingClientInterceptor(options(openTelemetry));
  }

  /**
   * The options both interceptors use: the shim over {@code openTelemetry} as the tracer; for
   * Temporal's interceptors built by hand (other span names, another error predicate).
   */
  public static OpenTracingOptions options(OpenTelemetry openTelemetry) {
    TextMapPropagator propagator = openTelemetry.getPropagators().getTextMapPropagator();
    if (propagator.fields().isEmpty()) {
      // Without a propagator no span context would reach the workflow or its activities.
      propagator = W3CTraceContextPropagator.getInstance();
    }
    return OpenTracingOptions.newBuilder()
        .setTracer(
            OpenTracingShim.createTracerShim(
                openTelemetry.getTracerProvider(), propagator, propagator))
        .build();
  }
}
