package io.durableagents.spring.boot.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample application on Temporal's embedded test server ({@code
 * spring.temporal.test-server.enabled}), for teams without the Temporal CLI; its store on the
 * application's DataSource (a SQLite file), which the store's Flyway migrations set up.
 */
@SpringBootTest(
    classes = SampleApplication.class,
    properties = {
      "spring.temporal.test-server.enabled=true",
      "spring.temporal.workers[0].task-queue=agents",
      "durable-agents.console.enabled=true",
      "durable-agents.console.port=0",
      "durable-agents.console.tokens."
          + SampleSessionScenario.APPROVER
          + "="
          + SampleSessionScenario.TOKEN
    })
@DirtiesContext
class SampleOnTestServerTest extends SampleSessionScenario {
  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry registry) throws IOException {
    Path dir = Files.createTempDirectory("spring-boot-test-server");
    registry.add("spring.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("app.db"));
    registry.add("spring.datasource.hikari.data-source-properties.busy_timeout", () -> "10000");
    registry.add("spring.datasource.hikari.data-source-properties.journal_mode", () -> "WAL");
  }
}
