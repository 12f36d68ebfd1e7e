package io.durableagents.model;

import io.durableagents.model.openai.OpenAiModelProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Creates a provider from a model spec string such as {@code scripted:PATH} or {@code openai:MODEL}. */
public final class ModelProviders {
  private static final String FORMS = "scripted:PATH or openai:MODEL";

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
   * the agent itself declares: one spec, one model, as on the command line. Use
   * {@link OpenAiModelProvider#newBuilder()} without a model to send each agent's own.
   */
  public static ModelProvider fromSpec(String spec, Map<String, String> env) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("Empty model spec; use " + FORMS + ".");
    }
    if (spec.startsWith("scripted:")) {
      Path path = Path.of(spec.substring("scripted:".length()));
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException("Model script not found: " + path);
      }
      return ScriptedModelProvider.fromFile(path);
    }
    if (spec.startsWith("openai:")) {
      return OpenAiModelProvider.fromEnvironment(spec.substring("openai:".length()), env);
    }
    throw new IllegalArgumentException("Unsupported model spec '" + spec + "'; use " + FORMS + ".");
  }
}
