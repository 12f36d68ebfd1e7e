package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;

/**
 * JSON Merge Patch (RFC 7386), the form in which tools update a session's business state: an object
 * patch sets its members, a {@code null} member removes one, nested objects merge, and anything
 * else replaces. Pure and deterministic, so the workflow and the tools apply it alike.
 *
 * <p>Written here rather than taken from a library: it is the RFC's fifteen-line algorithm, and the
 * workflow module keeps no dependency beyond the Temporal SDK and Jackson.
 */
public final class MergePatch {
  private MergePatch() {}

  /** The result of applying {@code patch} to {@code target}; neither argument is modified. */
  public static JsonNode apply(JsonNode target, JsonNode patch) {
    if (patch == null || !patch.isObject()) {
      return patch == null ? target : patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? ((ObjectNode) target).deepCopy()
            : JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> member : patch.properties()) {
      if (member.getValue().isNull()) {
        result.remove(member.getKey());
      } else {
        result.set(member.getKey(), apply(result.get(member.getKey()), member.getValue()));
      }
    }
    return result;
  }
}
