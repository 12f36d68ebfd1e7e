package io.durableagents.store.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;

/** Small JDBC helpers shared by the store's table classes; owns no table. */
final class JdbcStatements {
  private JdbcStatements() {}

  /** Runs {@code sql} with {@code parameters} (strings, integers or longs); the update count. */
  static int executeUpdate(Connection connection, String sql, Object... parameters)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, parameters);
      return statement.executeUpdate();
    }
  }

  /** The first column of the first row of query {@code sql} as a number; 0 when there is none. */
  static int count(Connection connection, String sql, Object... parameters) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, parameters);
      try (ResultSet row = statement.executeQuery()) {
        return row.next() ? row.getInt(1) : 0;
      }
    }
  }

  static void setNullableString(PreparedStatement statement, int index, String value)
      throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.VARCHAR);
    } else {
      statement.setString(index, value);
    }
  }

  private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
    for (int i = 0; i < parameters.length; i++) {
      Object parameter = parameters[i];
      if (parameter == null) {
        // Only text columns take a null parameter here.
        statement.setNull(i + 1, java.sql.Types.VARCHAR);
      } else if (parameter instanceof String text) {
        statement.setString(i + 1, text);
      } else if (parameter instanceof Integer number) {
        statement.setInt(i + 1, number);
      } else if (parameter instanceof Long number) {
        statement.setLong(i + 1, number);
      } else {
        throw new IllegalArgumentException("unsupported SQL parameter " + parameter);
      }
    }
  }
}
