package io.durableagents.tools.internal;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.RecordComponent;
import java.util.Collection;
import java.util.Map;

/** Derives a JSON schema from a record type: one required property per component. */
public final class RecordSchemas {
  private RecordSchemas() {}

  public static ObjectNode schemaFor(Class<?> type) {
    if (!type.isRecord()) {
      throw new IllegalArgumentException(
          type.getName() + " is not a record: give the tool an explicit inputSchema.");
    }
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    var required = schema.putArray("required");
    for (RecordComponent component : type.getRecordComponents()) {
      properties.set(component.getName(), typeOf(component.getType()));
      required.add(component.getName());
    }
    schema.put("additionalProperties", false);
    return schema;
  }

  private static ObjectNode typeOf(Class<?> type) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    if (type == String.class || type.isEnum()) {
      node.put("type", "string");
    } else if (type == int.class
        || type == long.class
        || type == Integer.class
        || type == Long.class
        || type == short.class
        || type == Short.class) {
      node.put("type", "integer");
    } else if (Number.class.isAssignableFrom(type) || type == double.class || type == float.class) {
      node.put("type", "number");
    } else if (type == boolean.class || type == Boolean.class) {
      node.put("type", "boolean");
    } else if (type.isArray() || Collection.class.isAssignableFrom(type)) {
      node.put("type", "array");
    } else if (type.isRecord()) {
      return schemaFor(type);
    } else if (Map.class.isAssignableFrom(type)) {
      node.put("type", "object");
    }
    return node;
  }
}
