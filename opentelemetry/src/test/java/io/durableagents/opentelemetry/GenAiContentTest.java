package io.durableagents.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.model.ModelResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Messages as the GenAI conventions' JSON: roles, parts of each kind, and the cut. */
class GenAiContentTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void messagesOfEveryRole_becomeTheirParts() throws Exception {
    GenAiContent content = new GenAiContent(10_000);
    List<Message> messages =
        List.of(
            new Message(
                Role.USER,
                "What is on this menu?",
                null,
                null,
                null,
                null,
                List.of(new Attachment("a-1", "menu.png", "image/png"))),
            new Message(
                Role.ASSISTANT,
                null,
                List.of(new ToolCall("c-1", "add", JSON.readTree("{\"a\":2}"))),
                null,
                null,
                null,
                null),
            new Message(Role.TOOL, null, null, "c-1", "add", JSON.readTree("5"), null));

    assertThat(content.inputMessages(messages))
        .isEqualTo(
            "[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"What is on this"
                + " menu?\"},{\"type\":\"file\",\"file_id\":\"a-1\",\"mime_type\":\"image/png\"}]},"
                + "{\"role\":\"assistant\",\"parts\":[{\"type\":\"tool_call\",\"id\":\"c-1\","
                + "\"name\":\"add\",\"arguments\":{\"a\":2}}]},"
                + "{\"role\":\"tool\",\"parts\":[{\"type\":\"tool_call_response\",\"id\":\"c-1\","
                + "\"response\":5}]}]");
    assertThat(
            content.outputMessages(
                new ModelResponse("2 + 3 = 5", List.of(), "stop", new Usage(1, 2))))
        .isEqualTo(
            "[{\"role\":\"assistant\",\"parts\":[{\"type\":\"text\",\"content\":\"2 + 3 = 5\"}],"
                + "\"finish_reason\":\"stop\"}]");
  }

  @Test
  void aLongValue_isCutAtTheLimit() throws Exception {
    assertThat(new GenAiContent(8).json(JSON.readTree("{\"city\":\"Paris\"}")))
        .isEqualTo("{\"city\":…");
    assertThat(new GenAiContent(8).json(null)).isEqualTo("null");
  }
}
