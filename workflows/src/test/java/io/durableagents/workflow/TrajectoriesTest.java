package io.durableagents.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.ToolCall;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrajectoriesTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode json(String text) throws Exception {
    return JSON.readTree(text);
  }

  private static List<Message> weather(String callId, String forecast, String answer)
      throws Exception {
    ToolCall call = new ToolCall(callId, "get_weather", json("{\"city\":\"Paris\"}"));
    return List.of(
        Message.user("weather?"),
        Message.assistant("checking", List.of(call)),
        Message.toolResult(call, json("{\"forecast\":\"" + forecast + "\"}")),
        Message.assistant(answer, null));
  }

  @Test
  void identicalTrajectoriesWithOtherCallIds_doNotDiverge() throws Exception {
    Trajectories.Comparison diff =
        Trajectories.compare(
            weather("call_0_0", "sun", "sunny"), "stop", weather("x-1", "sun", "sunny"), "stop");
    assertThat(diff.divergedAt()).isNull();
    assertThat(diff.drift().none()).isTrue();
    assertThat(diff.stepsA()).hasSize(2);
  }

  @Test
  void aChangedToolResult_divergesAtItsStep() throws Exception {
    Trajectories.Comparison diff =
        Trajectories.compare(
            weather("c", "sun", "sunny"), "stop", weather("c", "rain", "take an umbrella"), "stop");
    assertThat(diff.divergedAt()).isEqualTo(0);
    assertThat(diff.stepsB().get(0).toolCalls().get(0).result().get("forecast").asText())
        .isEqualTo("rain");
    assertThat(diff.drift().toolOrder()).isFalse();
    assertThat(diff.drift().arguments()).isEmpty();
  }

  @Test
  void differentToolsArgumentsLengthsAndEndings_areReportedAsDrift() throws Exception {
    ToolCall a = new ToolCall("1", "find", json("{\"q\":\"a\"}"));
    ToolCall b = new ToolCall("1", "find", json("{\"q\":\"b\"}"));
    ToolCall c = new ToolCall("2", "book", json("{}"));
    List<Message> x = List.of(Message.assistant(null, List.of(a)), Message.assistant("done", null));
    List<Message> y =
        List.of(
            Message.assistant(null, List.of(b)),
            Message.assistant(null, List.of(c)),
            Message.assistant("done", null));

    Trajectories.Comparison diff = Trajectories.compare(x, "stop", y, "max-steps");

    assertThat(diff.divergedAt()).isEqualTo(0);
    assertThat(diff.drift().arguments()).containsExactly("step 0 call 0 (find)");
    assertThat(diff.drift().toolOrder()).isTrue();
    assertThat(diff.drift().stepCount()).isTrue();
    assertThat(diff.drift().finishReason()).isTrue();
  }
}
