package io.durableagents.spring.boot;

import io.temporal.spring.boot.autoconfigure.MetricsScopeAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.NonRootNamespaceAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.OpenTracingAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.RootNamespaceAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.ServiceStubsAutoConfiguration;
import io.temporal.spring.boot.autoconfigure.TestServerAutoConfiguration;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Contexts of the starter on Temporal's starter with its embedded test server and a worker of task
 * queue {@code agents}, the store on a fresh SQLite file: cheap enough for one per case.
 */
final class StarterContexts {
  private StarterContexts() {}

  static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                MetricsScopeAutoConfiguration.class,
                OpenTracingAutoConfiguration.class,
                TestServerAutoConfiguration.class,
                ServiceStubsAutoConfiguration.class,
                RootNamespaceAutoConfiguration.class,
                NonRootNamespaceAutoConfiguration.class,
                DurableAgentsAutoConfiguration.class))
        .withPropertyValues(
            "spring.temporal.test-server.enabled=true",
            "spring.temporal.workers[0].task-queue=agents");
  }

  /** {@link #runner()} with the store on a new SQLite file. */
  static ApplicationContextRunner withSqliteStore() {
    return runner().withPropertyValues("durable-agents.store.url=" + sqliteUrl("agents.db"));
  }

  static String sqliteUrl(String file) {
    return "jdbc:sqlite:" + temporaryDirectory().resolve(file);
  }

  static Path temporaryDirectory() {
    try {
      return Files.createTempDirectory("spring-boot-starter-test");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
