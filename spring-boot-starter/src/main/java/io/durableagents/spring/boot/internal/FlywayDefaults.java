package io.durableagents.spring.boot.internal;

import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * The store brings Flyway onto the classpath, which switches on Spring Boot's own Flyway
 * auto-configuration: on an application's DataSource that already holds tables (the store's among
 * them) and no migrations of its own, it would refuse to start ("non-empty schema but no schema
 * history table"). So unless the application has migrations where Spring Boot looks ({@code
 * classpath:db/migration}) or says where its own are ({@code spring.flyway.locations}), {@code
 * spring.flyway.enabled} defaults to false. Any value the application sets wins. The store's own
 * migrations run either way, with their own history table.
 */
public final class FlywayDefaults implements EnvironmentPostProcessor {
  static final String ENABLED = "spring.flyway.enabled";
  private static final String DEFAULT_LOCATION = "classpath:db/migration";

  /** Made by Spring Boot, from {@code META-INF/spring.factories}. */
  public FlywayDefaults() {}

  @Override
  public void postProcessEnvironment(
      ConfigurableEnvironment environment, SpringApplication application) {
    if (environment.containsProperty(ENABLED)
        || environment.containsProperty("spring.flyway.locations")
        || environment.containsProperty("spring.flyway.locations[0]")) {
      return;
    }
    ClassLoader loader = application.getClassLoader();
    if (new DefaultResourceLoader(loader).getResource(DEFAULT_LOCATION).exists()) {
      return;
    }
    environment
        .getPropertySources()
        .addLast(new MapPropertySource("durable-agents-flyway-defaults", Map.of(ENABLED, "false")));
  }
}
