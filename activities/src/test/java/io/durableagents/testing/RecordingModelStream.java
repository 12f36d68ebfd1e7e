package io.durableagents.testing;

import io.durableagents.model.ModelStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ModelStream} for provider tests: records every delta in order ({@code "text:..."},
 * {@code "reasoning:..."}) and counts {@code alive()} calls. Subclass it to make a call throw, as
 * an activity's stream does after a cancel.
 */
public class RecordingModelStream implements ModelStream {
  /** The deltas, in order. */
  public final List<String> events = new ArrayList<>();

  /** How many times {@link #alive()} was called. */
  public int alive;

  @Override
  public void text(String delta) {
    events.add("text:" + delta);
  }

  @Override
  public void reasoning(String delta) {
    events.add("reasoning:" + delta);
  }

  @Override
  public void alive() {
    alive++;
  }
}
