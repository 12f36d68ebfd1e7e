package io.durableagents.app.demo;

import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ScriptedModelProvider;
import io.durableagents.testing.ConciergeAgent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The model a worker plays without {@code --model}: scripted conversations, one per role. An agent
 * named {@code weather} plays the weather script (it calls {@code forecast}); an agent that can
 * hand tasks to a {@code weather} sub-agent plays the delegating concierge script; every other
 * agent plays the concierge script ({@link ConciergeAgent#defaultScript()}).
 */
public final class DemoModel implements ModelProvider {
  private final ScriptedModelProvider concierge = ConciergeAgent.defaultScript();
  private final ScriptedModelProvider delegating = script("delegating-concierge-script.json");
  private final ScriptedModelProvider weather = script("weather-script.json");

  @Override
  public ModelResponse generate(ModelRequest request, ModelStream stream) {
    return scriptOf(request).generate(request, stream);
  }

  private ScriptedModelProvider scriptOf(ModelRequest request) {
    if ("weather".equals(request.agent())) {
      return weather;
    }
    boolean delegates = request.tools().stream().anyMatch(tool -> "weather".equals(tool.name()));
    return delegates ? delegating : concierge;
  }

  private static ScriptedModelProvider script(String resource) {
    try (InputStream in = DemoModel.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("Missing resource " + resource);
      }
      return ScriptedModelProvider.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
