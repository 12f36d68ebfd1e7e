package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Decides whether a call needs a human decision before it runs. It may look at the arguments (for
 * example: refunds above 100 need approval). Runs on the worker when the model's turn is recorded,
 * so it must be quick and must not have side effects.
 */
@FunctionalInterface
public interface ApprovalPolicy {
  /** No call needs approval. */
  ApprovalPolicy NEVER = args -> false;

  /** Every call needs approval. */
  ApprovalPolicy ALWAYS = args -> true;

  /** True when the call with these (validated) arguments must wait for a decision. */
  boolean needsApproval(JsonNode arguments);
}
