package io.durableagents.spring.boot.sample;

import io.durableagents.app.TemporalCli;
import io.durableagents.app.TemporalDevServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample application on the real Temporal dev server (the Temporal CLI, installed by {@code
 * scripts/install-temporal-cli} when none is found), its store on a SQLite file, its console on a
 * free loopback port with token authentication.
 */
// Registered before @SpringBootTest's extension, so that its after-all callback, which stops the
// server, runs after Spring's, which closes the application (@DirtiesContext).
@ExtendWith(SampleOnDevServerTest.StopServer.class)
@SpringBootTest(classes = SampleApplication.class)
@DirtiesContext
class SampleOnDevServerTest extends SampleSessionScenario {
  private static TemporalDevServer server;

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("spring-boot-dev-server");
    Path cli = TemporalCli.locate(null).orElseGet(() -> TemporalCli.install(null));
    server = TemporalDevServer.start(TemporalDevServer.Options.newBuilder(cli).build());
    registry.add("spring.temporal.connection.target", server::address);
    registry.add("spring.temporal.workers[0].task-queue", () -> "agents");
    // This application has no database of its own (the test class path has Spring's JDBC).
    registry.add(
        "spring.autoconfigure.exclude",
        () -> "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration");
    registry.add("durable-agents.store.url", () -> "jdbc:sqlite:" + dir.resolve("agents.db"));
    registry.add("durable-agents.console.enabled", () -> "true");
    registry.add("durable-agents.console.port", () -> "0");
    registry.add("durable-agents.console.tokens." + APPROVER, () -> TOKEN);
  }

  /** Stops the dev server once the application is closed. */
  static final class StopServer implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
      if (server != null) {
        server.close();
        server = null;
      }
    }
  }
}
