package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A tool result too large for a Temporal payload is stored in the artifact store, and the
 * transcript, the history and the run result hold this reference in its place: {@code
 * {"storedResult": {"artifactId": ..., "bytes": N, "mediaType": "application/json"}}}. Model turns
 * read the stored result back, so the model sees the whole result.
 */
public final class StoredResults {
  /** The single field of a reference. */
  public static final String FIELD = "storedResult";

  private StoredResults() {}

  public static ObjectNode reference(String artifactId, int bytes) {
    ObjectNode reference = JsonNodeFactory.instance.objectNode();
    ObjectNode stored = reference.putObject(FIELD);
    stored.put("artifactId", artifactId);
    stored.put("bytes", bytes);
    stored.put("mediaType", "application/json");
    return reference;
  }

  /**
   * Whether {@code result} is a reference (an object with nothing but a well-formed {@link
   * #FIELD}).
   */
  public static boolean isReference(JsonNode result) {
    return result != null
        && result.isObject()
        && result.size() == 1
        && result.path(FIELD).path("artifactId").isTextual();
  }

  /** The artifact id of a reference. */
  public static String artifactId(JsonNode reference) {
    return reference.path(FIELD).path("artifactId").asText();
  }
}
