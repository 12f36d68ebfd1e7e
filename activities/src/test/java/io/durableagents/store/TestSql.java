package io.durableagents.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;

/** One statement on a test database, on a connection of its own (what an operator's tool does). */
final class TestSql {
  private TestSql() {}

  static void execute(String jdbcUrl, String sql, Object... parameters) throws Exception {
    try (Connection connection = DriverManager.getConnection(jdbcUrl);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      statement.executeUpdate();
    }
  }
}
