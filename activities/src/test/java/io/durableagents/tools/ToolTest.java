package io.durableagents.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Booking(String restaurant, int people) {}

  @Test
  void typedTool_derivesASchemaFromTheRecord_andBindsArguments() throws Exception {
    Tool tool =
        Tool.newBuilder("book")
            .input(Booking.class, (in, ctx) -> Map.of("ok", in.restaurant() + "/" + in.people()))
            .build();

    assertThat(tool.validate(JSON.readTree("{\"restaurant\":\"Zinc\",\"people\":2}"))).isEmpty();
    assertThat(tool.validate(JSON.readTree("{\"restaurant\":\"Zinc\"}")))
        .singleElement()
        .asString()
        .contains("people");
    assertThat(tool.validate(JSON.readTree("{\"restaurant\":\"Zinc\",\"people\":\"two\"}")))
        .singleElement()
        .asString()
        .contains("integer");
    assertThat(tool.validate(JSON.readTree("{\"restaurant\":\"Zinc\",\"people\":2,\"x\":1}")))
        .isNotEmpty();

    Object result =
        tool.handler()
            .execute(
                JSON.readTree("{\"restaurant\":\"Zinc\",\"people\":2}"),
                ToolContext.newBuilder()
                    .setToolCallId("c")
                    .setSessionId("s")
                    .setAgent("a")
                    .setRun(1)
                    .setAttempt(1)
                    .build());
    assertThat(result).isEqualTo(Map.of("ok", "Zinc/2"));
  }

  @Test
  void explicitSchema_isEnforced_andHostileStringsAreJustData() throws Exception {
    Tool tool =
        Tool.newBuilder("find")
            .inputSchema(
                "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"maxLength\":20}},\"required\":[\"q\"]}")
            .handler((args, ctx) -> args)
            .build();
    assertThat(tool.validate(JSON.readTree("{\"q\":\"'; DROP TABLE x;--\"}"))).isEmpty();
    assertThat(tool.validate(JSON.readTree("{\"q\":\"" + "y".repeat(21) + "\"}"))).isNotEmpty();
    assertThat(tool.validate(null)).isNotEmpty();
  }

  @Test
  void badDefinitions_areRefusedWhenBuilt() {
    assertThatThrownBy(() -> Tool.newBuilder("has space").handler((a, c) -> null).build())
        .hasMessageContaining("must be 1-64");
    assertThatThrownBy(() -> Tool.newBuilder("t").build()).hasMessageContaining("no handler");
    assertThatThrownBy(() -> Tool.newBuilder("t").inputSchema("{nope"))
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> Tool.newBuilder("t").input(String.class, (s, c) -> s))
        .hasMessageContaining("not a record");
  }
}
