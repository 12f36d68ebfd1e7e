package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The model specs of this artifact alone: the OpenAI-compatible provider is not on its classpath.
 */
class ModelProvidersTest {

  @Test
  void openaiWithoutItsArtifact_namesTheArtifactToAdd() {
    assertThatThrownBy(
            () -> ModelProviders.fromSpec("openai:gpt-4o-mini", Map.of("OPENAI_API_KEY", "k")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("io.durableagents:durable-agents-openai")
        .hasMessageContaining("scripted:PATH");
  }

  @Test
  void anUnknownSpec_listsTheFormsOnTheClasspath() {
    assertThatThrownBy(() -> ModelProviders.fromSpec("claude:x", Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unsupported model spec 'claude:x'; use scripted:PATH.");
  }
}
