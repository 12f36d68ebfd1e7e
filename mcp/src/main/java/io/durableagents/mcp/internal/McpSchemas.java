package io.durableagents.mcp.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.durableagents.tools.internal.SchemaValidator;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The input schema of an MCP tool as JSON, and what is wrong with it: an MCP tool's arguments are
 * an object, and its schema must be a valid JSON schema (checked against the draft 2020-12 meta
 * schema, which the validator library carries) that the tool's arguments can be validated with.
 */
final class McpSchemas {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final JsonSchema META_SCHEMA =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));

  private McpSchemas() {}

  /** The schema as the server listed it, without the fields it left out. */
  static ObjectNode toJson(McpSchema.JsonSchema schema) {
    ObjectNode json = MAPPER.createObjectNode();
    if (schema == null) {
      return json.put("type", "object");
    }
    json.put("type", schema.type());
    putIfPresent(json, "properties", schema.properties());
    putIfPresent(json, "required", schema.required());
    putIfPresent(json, "additionalProperties", schema.additionalProperties());
    putIfPresent(json, "$defs", schema.defs());
    putIfPresent(json, "definitions", schema.definitions());
    return json;
  }

  private static void putIfPresent(ObjectNode json, String field, Object value) {
    if (value != null) {
      json.set(field, MAPPER.valueToTree(value));
    }
  }

  /** What is wrong with {@code schema}, or null when it can validate a tool's arguments. */
  static String problem(JsonNode schema) {
    if (!"object".equals(schema.path("type").asText(null))) {
      return "its type is " + schema.path("type") + ", not \"object\"";
    }
    Set<ValidationMessage> problems = META_SCHEMA.validate(schema);
    if (!problems.isEmpty()) {
      return problems.stream()
          .map(ValidationMessage::getMessage)
          .sorted()
          .collect(Collectors.joining("; "));
    }
    try {
      new SchemaValidator(schema);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }
}
