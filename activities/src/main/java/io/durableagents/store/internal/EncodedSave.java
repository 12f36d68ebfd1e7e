package io.durableagents.store.internal;

import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A checkpoint save with its messages serialized and its defaults filled in, ready to write; and
 * the checks a save passes before it is. Owns no table.
 */
record EncodedSave(CheckpointSave save, List<String> bodies, Usage usage, long stamp) {

  static EncodedSave of(CheckpointSave save) {
    List<String> bodies = new ArrayList<>(save.newMessages().size());
    for (Message message : save.newMessages()) {
      bodies.add(MessageCodec.encode(message));
    }
    long stamp = save.savedAt() > 0 ? save.savedAt() : System.currentTimeMillis();
    return new EncodedSave(save, bodies, save.usage() == null ? Usage.ZERO : save.usage(), stamp);
  }

  /** The run's configuration as JSON, when the save starts a run that has one. */
  String runConfig() {
    return save.runInfo() == null || save.runInfo().config() == null
        ? null
        : save.runInfo().config().toString();
  }

  /** The run's drift from its recorded definition, when the save starts a run. */
  String drift() {
    return save.runInfo() == null ? null : save.runInfo().drift();
  }

  static void requireSessionId(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("sessionId must not be blank");
    }
  }

  static void validate(CheckpointSave save) {
    Objects.requireNonNull(save, "save");
    requireSessionId(save.sessionId());
    if (save.executionId() == null || save.executionId().isBlank()) {
      throw new IllegalArgumentException(
          "executionId of the save of session " + save.sessionId() + " must not be blank");
    }
    if (save.agent() == null) {
      throw new IllegalArgumentException(
          "agent of the save of session " + save.sessionId() + " must not be null");
    }
    if (save.status() == null) {
      throw new IllegalArgumentException(
          "status of the save of session " + save.sessionId() + " must not be null");
    }
    if (save.step() < 0 || save.run() < 0 || save.firstSeq() < 0) {
      throw new IllegalArgumentException(
          "step, run and firstSeq of the save of session "
              + save.sessionId()
              + " must not be negative");
    }
    for (Message message : save.newMessages()) {
      if (message == null || message.role() == null) {
        throw new IllegalArgumentException(
            "every new message of the save of session " + save.sessionId() + " needs a role");
      }
    }
  }
}
