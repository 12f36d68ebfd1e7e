package io.durableagents.model;

/**
 * Where a provider reports progress while it generates. Calling it also heartbeats the model
 * activity, so a cancel or a dead worker is noticed while the model streams.
 */
public interface ModelStream {
  /** A piece of answer text, in order. */
  void text(String delta);

  /** A piece of reasoning text, in order. */
  void reasoning(String delta);

  /** No output yet, but still working (for example while waiting for the first byte). */
  void alive();

  /** A stream that discards everything. */
  static ModelStream discarding() {
    return new ModelStream() {
      @Override
      public void text(String delta) {}

      @Override
      public void reasoning(String delta) {}

      @Override
      public void alive() {}
    };
  }
}
