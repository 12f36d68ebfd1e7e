package io.durableagents.spring.boot.internal;

import io.durableagents.metrics.AgentMetrics;
import io.durableagents.micrometer.MicrometerAgentMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The agent metrics on the application's {@link MeterRegistry}, when {@code
 * durable-agents-micrometer} is on the classpath: only touched after {@link #available} said so, so
 * that an application without Micrometer never loads its types.
 */
public final class MicrometerMetrics {
  private static final String METRICS_CLASS = "io.durableagents.micrometer.MicrometerAgentMetrics";
  private static final String REGISTRY_CLASS = "io.micrometer.core.instrument.MeterRegistry";

  private MicrometerMetrics() {}

  /** Whether durable-agents-micrometer and Micrometer are on the classpath. */
  public static boolean available(ClassLoader loader) {
    return ClassUtils.isPresent(METRICS_CLASS, loader)
        && ClassUtils.isPresent(REGISTRY_CLASS, loader);
  }

  /** The metrics on the one MeterRegistry bean, or null when there is none (or several). */
  public static AgentMetrics of(BeanFactory beans) {
    MeterRegistry registry = beans.getBeanProvider(MeterRegistry.class).getIfUnique();
    return registry == null ? null : MicrometerAgentMetrics.of(registry);
  }
}
