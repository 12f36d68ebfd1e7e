package io.durableagents.app.agents;

import io.durableagents.conversation.FinishReason;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviderFactory;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ToolDefinition;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The model spec {@code echo-agent:} for tests: answers with what the worker sent it (agent, model,
 * instructions, tool names), so a test can see the definition a session ran with.
 */
public final class EchoModelFactory implements ModelProviderFactory {
  @Override
  public String prefix() {
    return "echo-agent:";
  }

  @Override
  public String form() {
    return "echo-agent:";
  }

  @Override
  public ModelProvider create(String argument, Map<String, String> env) {
    return (request, stream) -> {
      String text =
          "agent="
              + request.agent()
              + " model="
              + request.model()
              + " instructions="
              + request.instructions()
              + " tools="
              + request.tools().stream().map(ToolDefinition::name).collect(Collectors.joining(","));
      return new ModelResponse(text, List.of(), FinishReason.STOP, new Usage(1, 1));
    };
  }
}
