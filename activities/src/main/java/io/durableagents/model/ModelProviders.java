package io.durableagents.model;

import java.nio.file.Files;
import java.nio.file.Path;

/** Creates a provider from a model spec string such as {@code scripted:PATH}. */
public final class ModelProviders {
  private ModelProviders() {}

  /**
   * Parses {@code scripted:PATH}. Throws {@link IllegalArgumentException} with the accepted forms
   * for anything else.
   */
  public static ModelProvider fromSpec(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException("Empty model spec; use scripted:PATH.");
    }
    if (spec.startsWith("scripted:")) {
      Path path = Path.of(spec.substring("scripted:".length()));
      if (!Files.isRegularFile(path)) {
        throw new IllegalArgumentException("Model script not found: " + path);
      }
      return ScriptedModelProvider.fromFile(path);
    }
    throw new IllegalArgumentException(
        "Unsupported model spec '" + spec + "'; this version supports scripted:PATH.");
  }
}
