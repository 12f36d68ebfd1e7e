package io.durableagents.app.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaId;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Checks an agent's {@code outputSchema} against the JSON Schema 2020-12 meta-schema (the draft the
 * agent's own validator uses), so {@code {type: 42}} is a problem of the file when it is read, not
 * a failure of every run that asks for structured output. The meta-schema comes with the library:
 * nothing is fetched.
 */
final class OutputSchemaCheck {
  private static final JsonSchema META_SCHEMA =
      JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
          .getSchema(SchemaLocation.of(SchemaId.V202012));

  private OutputSchemaCheck() {}

  /**
   * The schema's problems: the path under the schema ({@code "type"}, {@code "properties.a.type"},
   * {@code ""} for the schema itself) to what is wrong there, one message per path.
   */
  static Map<String, String> problems(JsonNode schema) {
    Map<String, String> problems = new LinkedHashMap<>();
    META_SCHEMA.validate(schema).stream()
        .sorted(Comparator.comparing(ValidationMessage::getMessage))
        .forEach(m -> problems.merge(path(m), message(m), (a, b) -> a + "; " + b));
    return problems;
  }

  /** {@code $.properties.a.type} as {@code properties.a.type}, {@code $} as the empty path. */
  private static String path(ValidationMessage message) {
    String location = String.valueOf(message.getInstanceLocation());
    String path = location.startsWith("$") ? location.substring(1) : location;
    return path.startsWith(".") ? path.substring(1) : path;
  }

  /** The library's message without its location prefix ({@code "$.type: "}). */
  private static String message(ValidationMessage message) {
    String text = message.getMessage();
    String prefix = message.getInstanceLocation() + ": ";
    return text.startsWith(prefix) ? text.substring(prefix.length()) : text;
  }
}
