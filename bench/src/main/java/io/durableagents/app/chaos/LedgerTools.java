package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.app.agents.ToolSource;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The chaos suite's tools, {@value #A}, {@value #B} and {@value #C}, in the catalog of a worker
 * whose environment sets {@value #VARIABLE} to a ledger directory (none otherwise). Each attempt
 * appends a {@code start} line to the directory's {@value Ledger#TOOLS}, works 50-300 ms, appends
 * an {@code end} line (the effect) and returns {@code {tool, toolCallId, attempt, pid}}, so the
 * suite can match every recorded result with the effect that produced it.
 */
public final class LedgerTools implements ToolSource {
  /** The ledger directory, shared by every worker of the run. */
  public static final String VARIABLE = "AGENTS_CHAOS_LEDGER";

  static final String A = "chaos_a";
  static final String B = "chaos_b";
  static final String C = "chaos_c";

  /** Many attempts, with the default backoff (500 ms to 30 s): a killed attempt runs again. */
  private static final int MAX_ATTEMPTS = 50;

  /**
   * Far above the 50-300 ms an attempt takes: a worker that is alive but stalled (a loaded machine)
   * is not taken for a dead one. A killed worker's attempt is retried after the tool's 10 s
   * heartbeat timeout (docs/operations.md), not after this.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Override
  public List<Tool> tools(Map<String, String> env) {
    String dir = env.get(VARIABLE);
    if (dir == null || dir.isBlank()) {
      return List.of();
    }
    Ledger ledger = Ledger.open(Path.of(dir.strip()).resolve(Ledger.TOOLS));
    return List.of(tool(A, ledger), tool(B, ledger), tool(C, ledger));
  }

  private static Tool tool(String name, Ledger ledger) {
    return Tool.newBuilder(name)
        .setDescription("Appends its effect to the chaos ledger.")
        .setInputSchema("{\"type\": \"object\"}")
        .setHandler(
            (arguments, context) -> {
              ledger.append(line(name, context, "start"));
              Thread.sleep(ThreadLocalRandom.current().nextLong(50, 301));
              ledger.append(line(name, context, "end"));
              Map<String, Object> result = new LinkedHashMap<>();
              result.put("tool", name);
              result.put("toolCallId", context.toolCallId());
              result.put("attempt", context.attempt());
              result.put("pid", Ledger.PID);
              return result;
            })
        .setTimeout(TIMEOUT)
        .setMaxAttempts(MAX_ATTEMPTS)
        .build();
  }

  private static ObjectNode line(String tool, ToolContext context, String phase) {
    ObjectNode line = Ledger.line("tool", phase);
    line.put("sessionId", context.sessionId());
    line.put("toolCallId", context.toolCallId());
    line.put("tool", tool);
    line.put("attempt", context.attempt());
    line.put("idempotencyKey", context.idempotencyKey());
    return line;
  }
}
