package io.durableagents.model;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Creates a provider from a model spec string such as {@code scripted:PATH} or {@code
 * openai:MODEL}. {@code scripted:} is built in; the other forms come from the {@link
 * ModelProviderFactory} implementations on the classpath ({@code openai:} from {@code
 * io.durableagents:durable-agents-openai}).
 */
public final class ModelProviders {
  private static final String SCRIPTED = "scripted:";

  /** Spec prefixes of the project's optional provider artifacts, for a clear error without them. */
  private static final Map<String, String> OPTIONAL_ARTIFACTS =
      Map.of("openai:", "io.durableagents:durable-agents-openai");

  private ModelProviders() {}

  /**
   * Parses {@code scripted:PATH} or {@code openai:MODEL}, reading {@code OPENAI_BASE_URL} and
   * {@code OPENAI_API_KEY} from the process environment. Throws {@link IllegalArgumentException}
   * with the accepted forms for anything else.
   */
  public static ModelProvider fromSpec(String spec) {
    return fromSpec(spec, System.getenv());
  }

  /**
   * Like {@link #fromSpec(String)}, with the environment given as a map.
   *
   * <p>{@code openai:MODEL} sends MODEL for every agent the provider serves, whatever model name
   * the agent itself declares: one spec, one model, as on the command line. Use {@code
   * OpenAiModelProvider.newBuilder()} without a model to send each agent's own.
   */
  public static ModelProvider fromSpec(String spec, Map<String, String> env) {
    List<ModelProviderFactory> factories = new ArrayList<>();
    ServiceLoader.load(ModelProviderFactory.class).forEach(factories::add);
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("Empty model spec; use " + forms(factories) + ".");
    }
    if (spec.startsWith(SCRIPTED)) {
      Path path = Path.of(spec.substring(SCRIPTED.length()));
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException("Model script not found: " + path);
      }
      return ScriptedModelProvider.fromFile(path);
    }
    for (ModelProviderFactory factory : factories) {
      if (spec.startsWith(factory.prefix())) {
        return factory.create(spec.substring(factory.prefix().length()), env);
      }
    }
    for (Map.Entry<String, String> optional : OPTIONAL_ARTIFACTS.entrySet()) {
      if (spec.startsWith(optional.getKey())) {
        throw new IllegalArgumentException(
            "Model spec '"
                + spec
                + "' needs "
                + optional.getValue()
                + " on the classpath; add that"
                + " dependency, or use "
                + forms(factories)
                + ".");
      }
    }
    throw new IllegalArgumentException(
        "Unsupported model spec '" + spec + "'; use " + forms(factories) + ".");
  }

  /** "scripted:PATH or openai:MODEL": the forms the classpath offers. */
  private static String forms(List<ModelProviderFactory> factories) {
    StringBuilder forms = new StringBuilder("scripted:PATH");
    for (int i = 0; i < factories.size(); i++) {
      forms.append(i == factories.size() - 1 ? " or " : ", ").append(factories.get(i).form());
    }
    return forms.toString();
  }
}
