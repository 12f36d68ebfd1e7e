package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.setNullableString;

import io.durableagents.session.Approval;
import io.durableagents.session.internal.ApprovalRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Writes table {@code agent_approvals}: the approvals a save carries, keyed by id and never moved
 * back to pending, and the notifier's record. Its deletes are {@link SessionRemoval}'s.
 */
final class ApprovalRows {
  private ApprovalRows() {}

  static void upsert(Connection connection, String sessionId, ApprovalRecord record)
      throws SQLException {
    Approval approval = record.approval();
    try (PreparedStatement upsert = connection.prepareStatement(Sql.UPSERT_APPROVAL)) {
      upsert.setString(1, approval.approvalId());
      upsert.setString(2, sessionId);
      upsert.setInt(3, record.run());
      upsert.setInt(4, record.step());
      upsert.setString(5, approval.toolCallId());
      upsert.setString(6, approval.toolName());
      setNullableString(upsert, 7, approval.input() == null ? null : approval.input().toString());
      upsert.setString(8, record.status().value());
      upsert.setLong(9, approval.requestedAt());
      upsert.setLong(10, approval.expiresAt());
      if (record.decidedAt() > 0) {
        upsert.setLong(11, record.decidedAt());
      } else {
        upsert.setNull(11, Types.BIGINT);
      }
      setNullableString(upsert, 12, record.decidedBy());
      setNullableString(upsert, 13, record.note());
      upsert.executeUpdate();
    }
  }

  /** Records when the notifier accepted an approval; the first time only. */
  static void markNotified(
      Connection connection, String sessionId, String approvalId, long notifiedAt)
      throws SQLException {
    try (PreparedStatement update = connection.prepareStatement(Sql.MARK_NOTIFIED)) {
      update.setLong(1, notifiedAt);
      update.setString(2, sessionId);
      update.setString(3, approvalId);
      update.executeUpdate();
    }
  }
}
