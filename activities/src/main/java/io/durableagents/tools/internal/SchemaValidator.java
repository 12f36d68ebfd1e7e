package io.durableagents.tools.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.List;
import java.util.stream.Collectors;

/** Validates tool arguments against a JSON schema (draft 2020-12 unless the schema says). */
public final class SchemaValidator {
  private static final JsonSchemaFactory FACTORY =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);

  private final JsonSchema schema;

  public SchemaValidator(JsonNode schema) {
    try {
      this.schema = FACTORY.getSchema(schema);
      this.schema.initializeValidators();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("Invalid JSON schema: " + e.getMessage(), e);
    }
  }

  /** The problems found, sorted for stable messages; empty when valid. */
  public List<String> validate(JsonNode arguments) {
    JsonNode value = arguments == null ? JsonNodeFactory.instance.nullNode() : arguments;
    return schema.validate(value).stream()
        .map(ValidationMessage::getMessage)
        .sorted()
        .collect(Collectors.toList());
  }
}
