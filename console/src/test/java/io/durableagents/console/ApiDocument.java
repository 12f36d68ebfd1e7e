package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The console's OpenAPI document and the JSON Schemas it gives each response: a response schema is
 * validated in a schema document that holds the document's {@code components.schemas} as {@code
 * $defs}, so its {@code $ref}s resolve as in the OpenAPI document (3.1 schemas are JSON Schema
 * 2020-12).
 */
final class ApiDocument {
  static final String RESOURCE = "/io/durableagents/console/openapi.json";
  private static final String COMPONENT_SCHEMAS = "#/components/schemas/";

  private final JsonNode document;
  private final JsonNode defs;
  private final JsonSchemaFactory factory =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
  private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

  private ApiDocument(JsonNode document) {
    this.document = document;
    try {
      String components = Http.JSON.writeValueAsString(document.at("/components/schemas"));
      this.defs = Http.JSON.readTree(components.replace(COMPONENT_SCHEMAS, "#/$defs/"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ApiDocument load() {
    try (InputStream in = ApiDocument.class.getResourceAsStream(RESOURCE)) {
      assertThat(in).as("the console's jar holds %s", RESOURCE).isNotNull();
      return new ApiDocument(Http.JSON.readTree(in));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  JsonNode document() {
    return document;
  }

  /** Every documented operation as {@code "GET /api/sessions/{id}"}. */
  Set<String> operations() {
    Set<String> operations = new LinkedHashSet<>();
    for (Map.Entry<String, JsonNode> path : document.path("paths").properties()) {
      path.getValue()
          .fieldNames()
          .forEachRemaining(
              method -> {
                if (!method.equals("parameters")) {
                  operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
              });
    }
    return operations;
  }

  /** The documented response of an operation for a status, its {@code $ref} followed; or null. */
  JsonNode response(String method, String path, int status) {
    JsonNode operation = document.path("paths").path(path).path(method.toLowerCase(Locale.ROOT));
    assertThat(operation.isObject()).as("%s %s is documented", method, path).isTrue();
    JsonNode response = operation.path("responses").path(Integer.toString(status));
    if (response.has("$ref")) {
      response = document.at(response.get("$ref").textValue().substring(1));
    }
    return response.isMissingNode() ? null : response;
  }

  /** The schema of {@code mediaType} for an operation and status; fails when none is documented. */
  JsonSchema responseSchema(String method, String path, int status, String mediaType) {
    JsonNode response = response(method, path, status);
    assertThat(response).as("%s %s documents the status %s", method, path, status).isNotNull();
    JsonNode schema = response.path("content").path(mediaType).path("schema");
    assertThat(schema.isObject())
        .as("%s %s %s documents a %s body", method, path, status, mediaType)
        .isTrue();
    return schema(schema);
  }

  /** The schema {@code components.schemas.<name>}. */
  JsonSchema component(String name) {
    assertThat(document.at("/components/schemas/" + name).isObject())
        .as("components.schemas has %s", name)
        .isTrue();
    return schema(Http.JSON.createObjectNode().put("$ref", COMPONENT_SCHEMAS + name));
  }

  private JsonSchema schema(JsonNode schema) {
    return schemas.computeIfAbsent(
        schema.toString(),
        key -> {
          ObjectNode root = Http.JSON.createObjectNode();
          root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
          root.set("$defs", defs);
          String text = schema.toString().replace(COMPONENT_SCHEMAS, "#/$defs/");
          try {
            root.setAll((ObjectNode) Http.JSON.readTree(text));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return factory.getSchema(root);
        });
  }

  /** The problems of {@code body} against {@code schema}; empty when it conforms. */
  static Set<ValidationMessage> problems(JsonSchema schema, JsonNode body) {
    return schema.validate(body);
  }
}
