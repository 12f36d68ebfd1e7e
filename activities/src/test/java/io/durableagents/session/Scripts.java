package io.durableagents.session;

import io.durableagents.model.ScriptedModelProvider;

/** Builds scripted models from JSON with single quotes, to keep tests readable. */
final class Scripts {
  private Scripts() {}

  static ScriptedModelProvider of(String jsonWithSingleQuotes) {
    return ScriptedModelProvider.fromJson(jsonWithSingleQuotes.replace('\'', '"'));
  }
}
