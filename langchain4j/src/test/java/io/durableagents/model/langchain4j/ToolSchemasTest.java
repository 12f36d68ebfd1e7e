package io.durableagents.model.langchain4j;

import static io.durableagents.model.langchain4j.LangChain4jModelProviderTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonArraySchema;
import dev.langchain4j.model.chat.request.json.JsonEnumSchema;
import dev.langchain4j.model.chat.request.json.JsonIntegerSchema;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonRawSchema;
import dev.langchain4j.model.chat.request.json.JsonStringSchema;
import io.durableagents.model.ModelException;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;
import org.junit.jupiter.api.Test;

/** Tool input schemas as LangChain4j tool specifications. */
class ToolSchemasTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static ToolSpecification convert(String schema) {
    return ToolSchemas.specification(
        new ToolDefinition("plan", "Plans a trip.", schema == null ? null : json(schema)), MAPPER);
  }

  @Test
  void objectsArraysEnumsNestedObjectsAndRequired_becomeTypedSchemaElements() {
    ToolSpecification spec =
        convert(
            """
            {"type": "object",
             "description": "A trip.",
             "properties": {
               "city": {"type": "string", "description": "Where to."},
               "nights": {"type": "integer"},
               "class": {"type": "string", "enum": ["economy", "business"]},
               "stops": {"type": "array", "items": {"type": "string"}},
               "traveller": {"type": "object",
                             "properties": {"name": {"type": "string"},
                                            "age": {"type": "integer"}},
                             "required": ["name"]}},
             "required": ["city", "nights"],
             "additionalProperties": false}
            """);

    assertThat(spec.name()).isEqualTo("plan");
    assertThat(spec.description()).isEqualTo("Plans a trip.");
    JsonObjectSchema parameters = spec.parameters();
    assertThat(parameters.description()).isEqualTo("A trip.");
    assertThat(parameters.required()).containsExactly("city", "nights");
    assertThat(parameters.additionalProperties()).isFalse();
    assertThat(parameters.properties())
        .containsOnlyKeys("city", "nights", "class", "stops", "traveller");
    assertThat(parameters.properties().get("city"))
        .isEqualTo(JsonStringSchema.builder().description("Where to.").build());
    assertThat(parameters.properties().get("nights")).isInstanceOf(JsonIntegerSchema.class);
    assertThat(((JsonEnumSchema) parameters.properties().get("class")).enumValues())
        .containsExactly("economy", "business");
    assertThat(((JsonArraySchema) parameters.properties().get("stops")).items())
        .isInstanceOf(JsonStringSchema.class);
    JsonObjectSchema traveller = (JsonObjectSchema) parameters.properties().get("traveller");
    assertThat(traveller.properties()).containsOnlyKeys("name", "age");
    assertThat(traveller.required()).containsExactly("name");
  }

  @Test
  void aPropertyWithKeywordsLangChain4jHasNoFieldFor_travelsWholeAsARawSchema() {
    ToolSpecification spec =
        convert(
            """
            {"type": "object",
             "properties": {"time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"}}}
            """);

    assertThat(spec.parameters().properties().get("time")).isInstanceOf(JsonRawSchema.class);
    assertThat(json(((JsonRawSchema) spec.parameters().properties().get("time")).schema()))
        .isEqualTo(json("{\"type\": \"string\", \"pattern\": \"^[0-2][0-9]:[0-5][0-9]$\"}"));
  }

  @Test
  void rootKeywordsAnObjectSchemaCannotHold_areLeftOut_andTheRootIsAlwaysAnObject() {
    ToolSpecification spec =
        convert(
            """
            {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Trip",
             "minProperties": 1, "additionalProperties": {"type": "string"},
             "properties": {"city": {"type": "string"}}}
            """);

    assertThat(spec.parameters().properties()).containsOnlyKeys("city");
    assertThat(spec.parameters().additionalProperties()).isNull();
    assertThat(ToolSchemas.parameters(json("{\"title\": \"x\"}"), MAPPER))
        .isEqualTo(json("{\"type\": \"object\", \"properties\": {}}"));
  }

  @Test
  void noSchema_isAnObjectWithoutProperties() {
    assertThat(convert(null).parameters().properties()).isEmpty();
    assertThat(convert("true").parameters().properties()).isEmpty();
  }

  @Test
  void aSchemaLangChain4jRefuses_isAPermanentModelRequestInvalid_namingTheTool() {
    ModelException failure =
        catchThrowableOfType(
            ModelException.class,
            () -> convert("{\"type\": \"object\", \"properties\": {\"city\": \"string\"}}"));

    assertThat(failure.code()).isEqualTo(FailureTypes.MODEL_REQUEST_INVALID);
    assertThat(failure.retryable()).isFalse();
    assertThat(failure.getMessage()).contains("tool 'plan'", "city");
  }
}
