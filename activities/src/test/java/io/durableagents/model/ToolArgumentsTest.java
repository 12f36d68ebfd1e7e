package io.durableagents.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

class ToolArgumentsTest {

  @Test
  void anObjectIsParsed_anythingElseIsTheModelsRawText_andNothingIsAnEmptyObject() {
    assertThat(ToolArguments.parse("{\"city\":\"Paris\"}").path("city").asText())
        .isEqualTo("Paris");
    assertThat(ToolArguments.parse(null).isObject()).isTrue();
    assertThat(ToolArguments.parse("  ")).isEmpty();
    assertThat(ToolArguments.parse("[1,2]")).isEqualTo(TextNode.valueOf("[1,2]"));
    assertThat(ToolArguments.parse("{\"a\":")).isEqualTo(TextNode.valueOf("{\"a\":"));
    assertThat(ToolArguments.parse("{\"a\":1} and more"))
        .as("trailing text is no JSON object")
        .isEqualTo(TextNode.valueOf("{\"a\":1} and more"));
  }

  @Test
  void textGoesBackAsTheModelWroteIt() {
    assertThat(ToolArguments.text(null)).isEqualTo("{}");
    assertThat(ToolArguments.text(JsonNodeFactory.instance.nullNode())).isEqualTo("{}");
    assertThat(ToolArguments.text(TextNode.valueOf("not json"))).isEqualTo("not json");
    assertThat(ToolArguments.text(ToolArguments.parse("{ \"a\" : 1 }"))).isEqualTo("{\"a\":1}");
  }
}
