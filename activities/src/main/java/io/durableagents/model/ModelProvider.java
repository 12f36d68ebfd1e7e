package io.durableagents.model;

/**
 * The model-provider SPI. One call is one model turn; it runs inside the model activity, so it may
 * do IO, and its complete answer is recorded by Temporal and never generated again.
 *
 * <p>Implementations must be thread-safe: a worker runs many turns at once.
 */
public interface ModelProvider {

  /**
   * Generates one turn.
   *
   * @throws ModelException for failures, retryable or not
   */
  ModelResponse generate(ModelRequest request, ModelStream stream);
}
