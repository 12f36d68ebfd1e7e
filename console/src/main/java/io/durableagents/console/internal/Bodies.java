package io.durableagents.console.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;

/** Reads and checks request bodies: a JSON object whose bad or missing fields are named. */
public final class Bodies {
  /** The largest body the API reads: 1 MiB. */
  public static final long MAX_BODY = 1024 * 1024;

  private final ObjectMapper json;

  public Bodies(ObjectMapper json) {
    this.json = json;
  }

  /** The body as a JSON object; an empty body is an empty object. */
  public ObjectNode object(Context ctx) {
    if (ctx.contentLength() > MAX_BODY) {
      throw ApiException.tooLarge(MAX_BODY);
    }
    byte[] bytes = ctx.bodyAsBytes();
    if (bytes.length > MAX_BODY) {
      throw ApiException.tooLarge(MAX_BODY);
    }
    if (bytes.length == 0) {
      return json.createObjectNode();
    }
    JsonNode node;
    try {
      node = json.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("body", "the body is not JSON: " + e.getOriginalMessage());
    } catch (java.io.IOException e) {
      throw ApiException.badRequest("body", "the body cannot be read");
    }
    if (node == null || !node.isObject()) {
      throw ApiException.badRequest("body", "the body must be a JSON object");
    }
    return (ObjectNode) node;
  }

  public static boolean requireBoolean(ObjectNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      throw ApiException.badRequest(field, "'" + field + "' is missing");
    }
    if (!value.isBoolean()) {
      throw ApiException.badRequest(field, "'" + field + "' must be true or false");
    }
    return value.booleanValue();
  }

  public static String requireText(ObjectNode body, String field) {
    String value = optionalText(body, field);
    if (value == null) {
      throw ApiException.badRequest(field, "'" + field + "' is missing");
    }
    return value;
  }

  /** The field's text, or null when absent or null. */
  public static String optionalText(ObjectNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw ApiException.badRequest(field, "'" + field + "' must be a string");
    }
    return value.textValue();
  }

  public static int requireInt(ObjectNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      throw ApiException.badRequest(field, "'" + field + "' is missing");
    }
    if (!value.canConvertToInt() || !value.isIntegralNumber()) {
      throw ApiException.badRequest(field, "'" + field + "' must be an integer");
    }
    return value.intValue();
  }

  /** The field's object, or null when absent or null. */
  public static ObjectNode optionalObject(ObjectNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isObject()) {
      throw ApiException.badRequest(field, "'" + field + "' must be a JSON object");
    }
    return (ObjectNode) value;
  }

  /** A query parameter {@code true} or {@code false}; false when absent. */
  public static boolean booleanParam(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty() || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw ApiException.badRequest(name, "'" + name + "' must be true or false");
  }

  /** A query parameter as an integer in [min, max], or {@code fallback} when absent. */
  public static int intParam(Context ctx, String name, int fallback, int min, int max) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return fallback;
    }
    try {
      int parsed = Integer.parseInt(value);
      if (parsed >= min && parsed <= max) {
        return parsed;
      }
    } catch (NumberFormatException e) {
      // answered below
    }
    throw ApiException.badRequest(
        name, "'" + name + "' must be an integer from " + min + " to " + max);
  }
}
