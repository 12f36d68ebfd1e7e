package io.durableagents.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.RetryOptions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Booking(String restaurant, int people) {}

  @Test
  void typedTool_derivesASchemaFromTheRecord_andBindsArguments() throws Exception {
    Tool tool =
        Tool.newBuilder("book")
            .setHandler(
                Booking.class, (in, ctx) -> Map.of("ok", in.restaurant() + "/" + in.people()))
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
            .setInputSchema(
                "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\",\"maxLength\":20}},\"required\":[\"q\"]}")
            .setHandler((args, ctx) -> args)
            .build();
    assertThat(tool.validate(JSON.readTree("{\"q\":\"'; DROP TABLE x;--\"}"))).isEmpty();
    assertThat(tool.validate(JSON.readTree("{\"q\":\"" + "y".repeat(21) + "\"}"))).isNotEmpty();
    assertThat(tool.validate(null)).isNotEmpty();
  }

  @Test
  void badDefinitions_areRefusedWhenBuilt() {
    assertThatThrownBy(() -> Tool.newBuilder("has space").setHandler((a, c) -> null).build())
        .hasMessageContaining("must be 1-64");
    assertThatThrownBy(() -> Tool.newBuilder("t").build()).hasMessageContaining("no handler");
    assertThatThrownBy(() -> Tool.newBuilder("t").setInputSchema("{nope"))
        .hasMessageContaining("not JSON");
    assertThatThrownBy(() -> Tool.newBuilder("t").setHandler(String.class, (s, c) -> s))
        .hasMessageContaining("not a record");
  }

  @Test
  void toBuilder_copiesEverySetting_andLeavesTheOriginalAlone() {
    ToolHandler handler = (args, ctx) -> Map.of();
    RetryOptions retry = RetryOptions.newBuilder().setMaximumAttempts(7).build();
    Tool original =
        Tool.newBuilder("pay")
            .setDescription("Pays.")
            .setInputSchema("{\"type\":\"object\",\"required\":[\"amount\"]}")
            .setHandler(handler)
            .setTimeout(Duration.ofSeconds(9))
            .setMaxAttempts(5)
            .setTaskQueue("payments")
            .setRetryOptions(retry)
            .setApprovalPolicy(ApprovalPolicy.ALWAYS)
            .build();

    Tool copy = original.toBuilder().setApprovalPolicy(ApprovalPolicy.NEVER).build();

    assertThat(copy.name()).isEqualTo("pay");
    assertThat(copy.description()).isEqualTo("Pays.");
    assertThat(copy.inputSchema()).isEqualTo(original.inputSchema());
    assertThat(copy.handler()).isSameAs(handler);
    assertThat(copy.timeout()).isEqualTo(Duration.ofSeconds(9));
    assertThat(copy.maxAttempts()).isEqualTo(5);
    assertThat(copy.taskQueue()).isEqualTo("payments");
    assertThat(copy.retryOptions()).isSameAs(retry);
    assertThat(copy.execution()).isEqualTo(original.execution());
    assertThat(copy.approvalPolicy()).isSameAs(ApprovalPolicy.NEVER);
    assertThat(original.approvalPolicy()).isSameAs(ApprovalPolicy.ALWAYS);
  }
}
