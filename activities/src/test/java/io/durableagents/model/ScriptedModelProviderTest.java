package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.workflow.Message;
import io.durableagents.workflow.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScriptedModelProviderTest {
  private static final String SCRIPT =
      """
      {"turns": [
        {"text": "first", "toolCalls": [{"name": "a", "arguments": {"x": 1}}, {"name": "b"}],
         "usage": {"inputTokens": 10, "outputTokens": 3}},
        {"text": "second"},
        {"error": "rate limited forever"}
      ]}
      """;

  private static ModelRequest request(List<Message> messages) {
    return new ModelRequest("s", "agent", "m", "", messages, List.of(), 1);
  }

  @Test
  void turnIsChosenByTheNumberOfAssistantMessages_soARetryPlaysTheSameTurn() {
    ScriptedModelProvider model = ScriptedModelProvider.fromJson(SCRIPT);
    List<Message> conversation = new ArrayList<>(List.of(Message.user("hi")));

    ModelResponse first = model.generate(request(conversation), ModelStream.discarding());
    ModelResponse retried = model.generate(request(conversation), ModelStream.discarding());

    assertThat(first).isEqualTo(retried);
    assertThat(first.text()).isEqualTo("first");
    assertThat(first.toolCalls()).extracting(ToolCall::id).containsExactly("call_0_0", "call_0_1");
    assertThat(first.toolCalls().get(0).arguments().get("x").asInt()).isEqualTo(1);
    assertThat(first.toolCalls().get(1).arguments().isObject()).isTrue();
    assertThat(first.usage().inputTokens()).isEqualTo(10);
    assertThat(first.finishReason()).isEqualTo("tool-calls");

    conversation.add(Message.assistant("first", first.toolCalls()));
    ModelResponse second = model.generate(request(conversation), ModelStream.discarding());
    assertThat(second.text()).isEqualTo("second");
    assertThat(second.toolCalls()).isEmpty();
    assertThat(second.finishReason()).isEqualTo("stop");
  }

  @Test
  void errorTurn_failsWithThatMessage_andPastTheLastTurnTheScriptHasEnded() {
    ScriptedModelProvider model = ScriptedModelProvider.fromJson(SCRIPT);
    List<Message> twoTurnsIn =
        List.of(Message.user("hi"), Message.assistant("1", null), Message.assistant("2", null));
    assertThatThrownBy(() -> model.generate(request(twoTurnsIn), ModelStream.discarding()))
        .isInstanceOf(ModelException.class)
        .hasMessage("rate limited forever")
        .satisfies(e -> assertThat(((ModelException) e).retryable()).isFalse());

    List<Message> past = new ArrayList<>(twoTurnsIn);
    past.add(Message.assistant("3", null));
    assertThat(model.generate(request(past), ModelStream.discarding()).text())
        .isEqualTo(ScriptedModelProvider.SCRIPT_ENDED);
  }

  @Test
  void malformedScripts_andUnknownSpecs_giveClearErrors(@TempDir Path dir) throws Exception {
    assertThatThrownBy(() -> ScriptedModelProvider.fromJson("{\"turn\": []}"))
        .hasMessageContaining("\"turns\" array");
    assertThatThrownBy(() -> ScriptedModelProvider.fromJson("not json"))
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> ModelProviders.fromSpec("scripted:" + dir.resolve("missing.json")))
        .hasMessageContaining("not found");
    assertThatThrownBy(() -> ModelProviders.fromSpec("gpt:4")).hasMessageContaining("scripted:PATH");
    Path script = Files.writeString(dir.resolve("s.json"), SCRIPT);
    assertThat(ModelProviders.fromSpec("scripted:" + script)).isInstanceOf(ScriptedModelProvider.class);
  }
}
