package io.durableagents.workflow.internal;

import io.durableagents.workflow.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * The workflow's view of the transcript: how many messages the store already holds, and the
 * messages produced since the last checkpoint save. The stored prefix is never kept in workflow
 * memory or in any payload.
 */
final class Transcript {
  private int stored;
  private final List<Message> unsaved = new ArrayList<>();

  int stored() {
    return stored;
  }

  int size() {
    return stored + unsaved.size();
  }

  List<Message> unsaved() {
    return List.copyOf(unsaved);
  }

  void add(Message message) {
    unsaved.add(message);
  }

  /** Marks the unsaved messages as written by a completed checkpoint save. */
  void markSaved() {
    stored += unsaved.size();
    unsaved.clear();
  }
}
