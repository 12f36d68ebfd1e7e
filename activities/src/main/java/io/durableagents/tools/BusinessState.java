package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.workflow.internal.wire.MergePatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The session's business state as one tool call sees it: JSON that every tool of the session may
 * read and update, kept in each checkpoint, carried across continue-as-new and replaced by a fork's
 * {@code businessState} patch.
 *
 * <p>Updates are JSON Merge Patches (RFC 7386): {@code {"cart": {"items": 2}, "coupon": null}} sets
 * {@code cart.items} and removes {@code coupon}, leaving every other member alone. They take effect
 * only if the call returns a result: a call that throws leaves no update, and every attempt starts
 * from the state the call started with. The workflow applies each call's updates in call order once
 * the calls before it have results, so calls of one batch that run in parallel may each update
 * their own members without losing the other's; a call started in parallel with another does not
 * see that other's updates.
 */
public final class BusinessState {
  /**
   * Bound of the serialized state after a call's updates. The state travels with every tool call
   * and every checkpoint save: keep it to what the tools need, and put bulk data in artifacts. The
   * same bound as {@link io.durableagents.workflow.Limits#BUSINESS_STATE_BYTES}.
   */
  public static final int MAX_BYTES = io.durableagents.workflow.Limits.BUSINESS_STATE_BYTES;

  private JsonNode current;
  private final List<JsonNode> updates = new ArrayList<>();

  /** The state a call starts from ({@code null} when the session has none yet). */
  public BusinessState(JsonNode initial) {
    this.current = initial;
  }

  /** An empty state. */
  public static BusinessState empty() {
    return new BusinessState(null);
  }

  /**
   * A copy of the state, with this call's own updates applied: an empty object when the session has
   * no state yet. Changing the copy changes nothing; use {@link #update}.
   */
  public JsonNode get() {
    return current == null ? JsonNodeFactory.instance.objectNode() : current.deepCopy();
  }

  /**
   * Merges {@code patch} into the state (RFC 7386).
   *
   * @throws IllegalArgumentException unless {@code patch} is a JSON object
   */
  public void update(JsonNode patch) {
    if (patch == null || !patch.isObject()) {
      throw new IllegalArgumentException(
          "A business state update is a JSON object (a merge patch), not "
              + (patch == null ? "null" : patch.getNodeType()));
    }
    current = MergePatch.apply(current, patch);
    updates.add(patch.deepCopy());
  }

  /** The updates this call made, in order. */
  public List<JsonNode> updates() {
    return List.copyOf(updates);
  }
}
