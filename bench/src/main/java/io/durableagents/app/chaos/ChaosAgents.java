package io.durableagents.app.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The agents file the chaos workers serve ({@code agents worker --agents FILE}): two agents with
 * the ledger tools of {@link LedgerTools}, one of them gating {@value LedgerTools#B} on an
 * approval. Short model timeouts with many attempts, so that a killed worker's turn runs again
 * within seconds and an outage never uses up a turn's attempts.
 */
final class ChaosAgents {
  static final String FREE = "chaos";
  static final String GATED = "chaos-gated";

  static final String FILE =
      """
      defaultAgent: chaos
      agents:
        - name: chaos
          instructions: Call the chaos tools as the script says.
          tools: [chaos_a, chaos_b, chaos_c]
          maxSteps: 10
          modelTimeout: 30s
          modelMaxAttempts: 50
        - name: chaos-gated
          instructions: Call the chaos tools as the script says; chaos_b waits for a human.
          tools:
            - chaos_a
            - name: chaos_b
              approval: always
            - chaos_c
          maxSteps: 10
          modelTimeout: 30s
          modelMaxAttempts: 50
      """;

  private ChaosAgents() {}

  static Path write(Path dir) throws IOException {
    return Files.writeString(dir.resolve("chaos-agents.yaml"), FILE);
  }
}
