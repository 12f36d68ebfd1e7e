package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviderFactory;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ScriptedModelProvider;
import io.temporal.activity.Activity;
import java.nio.file.Path;
import java.util.Map;

/**
 * The model spec {@code chaos-ledger:DIR}: the chaos suite's {@link #SCRIPT}, with a line in {@code
 * DIR}/{@value Ledger#MODEL} before and after every generation. An {@code end} line means the
 * provider produced an answer, whether or not Temporal recorded it.
 */
public final class LedgerModelFactory implements ModelProviderFactory {
  static final String PREFIX = "chaos-ledger:";

  /**
   * Every session plays the same script: three model turns, five tool calls. Which of them waits
   * for an approval is the agent's choice ({@link ChaosAgents}).
   */
  static final String SCRIPT =
      """
      {"turns": [
        {"text": "Working on it.", "delayMs": 200,
         "toolCalls": [{"name": "chaos_a", "arguments": {}},
                       {"name": "chaos_b", "arguments": {}},
                       {"name": "chaos_c", "arguments": {}}]},
        {"delayMs": 150,
         "toolCalls": [{"name": "chaos_a", "arguments": {}},
                       {"name": "chaos_c", "arguments": {}}]},
        {"text": "done"}
      ]}
      """;

  @Override
  public String prefix() {
    return PREFIX;
  }

  @Override
  public String form() {
    return PREFIX + "DIR";
  }

  @Override
  public ModelProvider create(String argument, Map<String, String> env) {
    if (argument.isBlank()) {
      throw new IllegalArgumentException("chaos-ledger: needs the ledger directory");
    }
    Ledger ledger = Ledger.open(Path.of(argument.strip()).resolve(Ledger.MODEL));
    ModelProvider script = ScriptedModelProvider.fromJson(SCRIPT);
    return (request, stream) -> {
      ledger.append(line(request, "start"));
      ModelResponse response = script.generate(request, stream);
      ledger.append(line(request, "end"));
      return response;
    };
  }

  private static ObjectNode line(ModelRequest request, String phase) {
    ObjectNode line = Ledger.line("model", phase);
    line.put("sessionId", request.sessionId());
    line.put("turn", request.assistantTurns());
    line.put("step", request.step());
    line.put("attempt", Activity.getExecutionContext().getInfo().getAttempt());
    return line;
  }
}
