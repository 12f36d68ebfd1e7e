package io.durableagents.store.internal;

import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The hash chain ({@link TranscriptHash}) of a session's stored transcript, as the saves of one
 * transaction extend it: each history entry gets the chain of its transcript, so that a fork from
 * it need not hash the transcript again, and the workflow need not send it with every save. Reads
 * the chains kept in {@code agent_checkpoints}; writes nothing.
 */
final class TranscriptChain {
  /** Null when unknown: rows written before the column existed, or after a save that left a gap. */
  private String hash;

  private int count;

  TranscriptChain(String hash, int count) {
    this.hash = hash;
    this.count = count;
  }

  /** The chain of {@code encoded}'s transcript (null when unknown); the chain moves on to it. */
  String extend(Connection connection, EncodedSave encoded) throws SQLException {
    CheckpointSave save = encoded.save();
    String next = save.transcriptHash();
    if (next == null) {
      next = at(connection, save.sessionId(), save.firstSeq());
      for (int i = 0; next != null && i < encoded.bodies().size(); i++) {
        next =
            TranscriptHash.linkJson(next, encoded.bodies().get(i).getBytes(StandardCharsets.UTF_8));
      }
    }
    hash = next;
    count = save.messageCount();
    return next;
  }

  /**
   * The chain of the first {@code messages} messages: this one when it covers exactly them (the
   * usual case), else that of a kept entry of that length (a retried or rebuilt save).
   */
  private String at(Connection connection, String sessionId, int messages) throws SQLException {
    if (messages == 0) {
      return TranscriptHash.EMPTY;
    }
    if (hash != null && count == messages) {
      return hash;
    }
    try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_CHAIN_AT)) {
      select.setString(1, sessionId);
      select.setInt(2, messages);
      try (ResultSet row = select.executeQuery()) {
        return row.next() ? row.getString(1) : null;
      }
    }
  }
}
