package io.durableagents.conversation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A message's role on the wire: the lowercase names it had as a string, and nothing else. */
class RoleTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void eachRole_isWrittenAndReadAsItsLowercaseName() throws Exception {
    assertThat(List.of(Role.values()))
        .extracting(Role::value)
        .containsExactly("system", "user", "assistant", "tool");
    for (Role role : Role.values()) {
      String json = JSON.writeValueAsString(role);
      assertThat(json).isEqualTo("\"" + role.value() + "\"");
      assertThat(JSON.readValue(json, Role.class)).isSameAs(role);
      assertThat(role).hasToString(role.value());
    }
  }

  @Test
  void messages_keepTheirJsonByteForByte() throws Exception {
    ToolCall call = new ToolCall("call_0_0", "get_weather", JSON.readTree("{\"city\":\"Paris\"}"));
    assertThat(JSON.writeValueAsString(Message.user("hi")))
        .isEqualTo("{\"role\":\"user\",\"text\":\"hi\"}");
    assertThat(JSON.writeValueAsString(Message.assistant(null, List.of(call))))
        .isEqualTo(
            "{\"role\":\"assistant\",\"toolCalls\":[{\"id\":\"call_0_0\",\"name\":\"get_weather\","
                + "\"arguments\":{\"city\":\"Paris\"}}]}");
    assertThat(JSON.writeValueAsString(Message.toolResult(call, JSON.readTree("{\"sky\":1}"))))
        .isEqualTo(
            "{\"role\":\"tool\",\"toolCallId\":\"call_0_0\",\"toolName\":\"get_weather\","
                + "\"result\":{\"sky\":1}}");
    String system = "{\"role\":\"system\",\"text\":\"Be brief.\"}";
    assertThat(JSON.readValue(system, Message.class).role()).isEqualTo(Role.SYSTEM);
    assertThat(JSON.writeValueAsString(JSON.readValue(system, Message.class))).isEqualTo(system);
  }

  @Test
  void anUnknownRole_isRefused_namingItAndTheRolesThereAre() {
    assertThatThrownBy(() -> JSON.readValue("{\"role\":\"robot\",\"text\":\"hi\"}", Message.class))
        .isInstanceOf(JsonMappingException.class)
        .hasMessageContaining("Unknown role 'robot'; roles are system, user, assistant and tool.");
    assertThatThrownBy(() -> Role.fromValue("User"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Unknown role 'User'; roles are system, user, assistant and tool.");
    assertThatThrownBy(() -> Role.fromValue("x\u001b[31m" + "y".repeat(100)))
        .hasMessage(
            "Unknown role 'x?[31m"
                + "y".repeat(34)
                + "...'; roles are system, user, assistant and tool.");
    assertThat(Role.fromValue(null)).isNull();
  }
}
