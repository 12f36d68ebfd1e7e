package io.durableagents.model.anthropic;

import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelProviderFactory;
import java.util.Map;

/**
 * The {@code anthropic:MODEL} model spec of {@link io.durableagents.model.ModelProviders#fromSpec}:
 * {@link AnthropicModelProvider#fromEnvironment}. Registered for {@link java.util.ServiceLoader} by
 * this artifact, so the spec works wherever the artifact is on the classpath.
 */
public final class AnthropicModelProviderFactory implements ModelProviderFactory {
  /** The factory {@link java.util.ServiceLoader} creates. */
  public AnthropicModelProviderFactory() {}

  @Override
  public String prefix() {
    return "anthropic:";
  }

  @Override
  public String form() {
    return "anthropic:MODEL";
  }

  @Override
  public ModelProvider create(String argument, Map<String, String> env) {
    return AnthropicModelProvider.fromEnvironment(argument, env);
  }
}
