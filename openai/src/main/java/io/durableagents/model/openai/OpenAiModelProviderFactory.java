package io.durableagents.model.openai;

import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviderFactory;
import java.util.Map;

/**
 * The {@code openai:MODEL} model spec of {@link io.durableagents.model.ModelProviders#fromSpec}:
 * {@link OpenAiModelProvider#fromEnvironment}. Registered for {@link java.util.ServiceLoader} by
 * this artifact, so the spec works wherever the artifact is on the classpath.
 */
public final class OpenAiModelProviderFactory implements ModelProviderFactory {
  @Override
  public String prefix() {
    return "openai:";
  }

  @Override
  public String form() {
    return "openai:MODEL";
  }

  @Override
  public ModelProvider create(String argument, Map<String, String> env) {
    return OpenAiModelProvider.fromEnvironment(argument, env);
  }
}
