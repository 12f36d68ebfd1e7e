package io.durableagents.streaming;

/**
 * Receives the text and reasoning deltas of the model turns this worker process executes, for
 * example to push them to a UI while the model is still generating. Register it with {@code
 * AgentsPluginOptions.Builder.addDeltaListener}.
 *
 * <pre>{@code
 * DeltaListener printer = delta -> {
 *   if (delta.isText()) {
 *     System.out.print(delta.text());
 *   }
 * };
 * AgentsPlugin plugin = new AgentsPlugin(AgentsPluginOptions.newBuilder()
 *     .addAgent(concierge)
 *     .setModelProvider(provider)
 *     .setStore(store)
 *     .addDeltaListener(printer)
 *     .build());
 * }</pre>
 *
 * <p>Thread context: called on the model activity's thread, in the order the provider produced the
 * deltas, before the provider reads further. Only the worker process that executes a turn sees its
 * deltas; a listener in another worker of the same task queue sees nothing of it. Implementations
 * must be thread-safe (several turns stream at once) and quick: hand the delta off rather than
 * block, since a slow listener slows the model call. An exception thrown by a listener is logged
 * and ignored; it never fails the turn.
 *
 * <p>Once the activity learns that it was cancelled (a heartbeat reports it), no further delta of
 * that turn is delivered and the provider call is stopped.
 */
@FunctionalInterface
public interface DeltaListener {
  /** Receives one delta of a model turn that is streaming. */
  void onDelta(Delta delta);
}
