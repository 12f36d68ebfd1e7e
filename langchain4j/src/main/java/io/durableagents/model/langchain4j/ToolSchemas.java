package io.durableagents.model.langchain4j;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.agent.tool.ToolSpecification;
import io.durableagents.model.ModelException;
import io.durableagents.model.ToolDefinition;
import io.durableagents.workflow.FailureTypes;
import java.util.Set;

/**
 * A tool as a LangChain4j {@link ToolSpecification}. The conversion is LangChain4j's own ({@link
 * ToolSpecification#fromJson}): properties it has a type for (string, integer, number, boolean,
 * enum, array, object, anyOf, $ref) become typed schema elements, and any property with keywords it
 * has no field for ({@code minLength}, {@code pattern}, {@code minimum}, ...) travels whole as a
 * raw schema, so nothing below the root is lost.
 */
final class ToolSchemas {
  /** What LangChain4j's object schema can hold at the root; other root keywords are left out. */
  private static final Set<String> ROOT_KEYWORDS =
      Set.of("description", "properties", "required", "additionalProperties", "$defs");

  private ToolSchemas() {}

  static ToolSpecification specification(ToolDefinition tool, ObjectMapper mapper) {
    ObjectNode spec = mapper.createObjectNode();
    spec.put("name", tool.name());
    if (tool.description() != null && !tool.description().isBlank()) {
      spec.put("description", tool.description());
    }
    spec.set("parameters", parameters(tool.inputSchema(), mapper));
    try {
      return ToolSpecification.fromJson(mapper.writeValueAsString(spec));
    } catch (IllegalArgumentException | JsonProcessingException e) {
      throw ModelException.permanent(
          FailureTypes.MODEL_REQUEST_INVALID,
          "The input schema of tool '"
              + tool.name()
              + "' cannot be given to LangChain4j: "
              + e.getMessage());
    }
  }

  /**
   * The root as an object schema LangChain4j accepts: always {@code "type": "object"}, only the
   * keywords of {@link #ROOT_KEYWORDS} (a schema-valued {@code additionalProperties} is left out
   * too). The tool's own validation still checks everything left out.
   */
  static ObjectNode parameters(JsonNode schema, ObjectMapper mapper) {
    ObjectNode root = mapper.createObjectNode().put("type", "object");
    if (schema == null || !schema.isObject()) {
      root.putObject("properties");
      return root;
    }
    for (var field : schema.properties()) {
      boolean kept =
          ROOT_KEYWORDS.contains(field.getKey())
              && (!field.getKey().equals("additionalProperties") || field.getValue().isBoolean());
      if (kept) {
        root.set(field.getKey(), field.getValue().deepCopy());
      }
    }
    if (!root.has("properties")) {
      root.putObject("properties");
    }
    return root;
  }
}
