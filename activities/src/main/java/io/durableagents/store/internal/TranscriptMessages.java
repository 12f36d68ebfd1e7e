package io.durableagents.store.internal;

import io.durableagents.conversation.Message;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * Writes table {@code agent_messages}: a save's new messages, keyed by (session, seq), and the
 * prefix a fork copies from its source. The reads are the read model's; the deletes {@link
 * SessionRemoval}'s.
 */
final class TranscriptMessages {
  private TranscriptMessages() {}

  /** The save's new messages, from its first seq on. */
  static void upsert(Connection connection, EncodedSave encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    List<Message> messages = save.newMessages();
    List<String> bodies = encoded.bodies();
    if (messages.isEmpty()) {
      return;
    }
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_MESSAGE)) {
      for (int i = 0; i < messages.size(); i++) {
        upsert.setString(1, save.sessionId());
        upsert.setInt(2, save.firstSeq() + i);
        upsert.setInt(3, save.run());
        upsert.setInt(4, save.step());
        upsert.setString(5, messages.get(i).role().value());
        upsert.setString(6, bodies.get(i));
        upsert.addBatch();
      }
      upsert.executeBatch();
    }
  }

  /**
   * Copies the first {@code copied} messages of {@code sourceSessionId}, as they are stored, to the
   * fork that {@code save} starts.
   *
   * @throws StoreException if the source holds fewer of them
   */
  static void copyForFork(
      Connection connection, String sourceSessionId, int copied, CheckpointSave save)
      throws SQLException {
    int rows;
    try (PreparedStatement copy = connection.prepareStatement(Sql.COPY_MESSAGES)) {
      copy.setString(1, save.sessionId());
      copy.setInt(2, save.run());
      copy.setInt(3, save.step());
      copy.setString(4, sourceSessionId);
      copy.setInt(5, copied);
      rows = copy.executeUpdate();
    }
    if (rows != copied) {
      throw new StoreException(
          "cannot fork session "
              + sourceSessionId
              + ": the store holds "
              + rows
              + " of the "
              + copied
              + " messages to copy");
    }
  }
}
