package io.durableagents.activities.internal;

import java.util.List;
import java.util.Locale;

/**
 * The context windows of well-known model families, by the model name's prefix, for agents that do
 * not set theirs (docs/context.md lists them). The first matching prefix wins, so longer ones come
 * first; a name that matches none has an unknown window (0).
 */
final class ModelWindows {
  private record Family(String prefix, int window) {}

  private static final List<Family> FAMILIES =
      List.of(
          new Family("gpt-4.1", 1_047_576),
          new Family("gpt-4o", 128_000),
          new Family("gpt-4-turbo", 128_000),
          new Family("gpt-4", 8_192),
          new Family("gpt-3.5-turbo", 16_385),
          new Family("gpt-5", 400_000),
          new Family("o1", 200_000),
          new Family("o3", 200_000),
          new Family("o4", 200_000),
          new Family("claude-", 200_000),
          new Family("gemini-", 1_048_576),
          new Family("mistral-large", 128_000),
          new Family("llama-3", 128_000),
          new Family("llama3", 128_000));

  private ModelWindows() {}

  /** The window of {@code model}'s family in tokens; 0 when the family is not known. */
  static int of(String model) {
    if (model == null) {
      return 0;
    }
    String name = model.toLowerCase(Locale.ROOT);
    // A provider-qualified name (openai/gpt-4o, anthropic:claude-…) is matched on the model part.
    int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf(':'));
    name = name.substring(slash + 1);
    for (Family family : FAMILIES) {
      if (name.startsWith(family.prefix())) {
        return family.window();
      }
    }
    return 0;
  }
}
