package io.durableagents.store.internal;

import static io.durableagents.store.internal.JdbcStatements.executeUpdate;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Table {@code agent_definitions}: the agent definitions runs started under, written once each
 * under their fingerprint.
 */
final class AgentDefinitions {
  private AgentDefinitions() {}

  static void insert(Connection connection, String fingerprint, String agent, String definition)
      throws SQLException {
    executeUpdate(
        connection,
        Sql.INSERT_DEFINITION,
        fingerprint,
        agent,
        definition,
        System.currentTimeMillis());
  }

  static Optional<String> find(Connection connection, String fingerprint) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement(Sql.SELECT_DEFINITION)) {
      select.setString(1, fingerprint);
      try (ResultSet rows = select.executeQuery()) {
        return rows.next() ? Optional.of(rows.getString(1)) : Optional.empty();
      }
    }
  }
}
