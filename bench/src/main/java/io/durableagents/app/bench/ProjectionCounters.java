package io.durableagents.app.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PostgreSQL's own counters of what the projection was sent: rows inserted, updated and deleted in
 * its tables, transactions committed, and the database's size on disk (tables, indexes, TOAST).
 * PostgreSQL publishes a backend's counts when it goes idle, up to ten seconds late, so {@link
 * #read} waits until two readings a second apart agree.
 */
record ProjectionCounters(long inserted, long updated, long deleted, long commits, long bytes) {
  private static final int SETTLE_READS = 20;

  static ProjectionCounters read(String url) {
    try (Connection connection = DriverManager.getConnection(url)) {
      ProjectionCounters last = readOnce(connection);
      for (int i = 0; i < SETTLE_READS; i++) {
        Thread.sleep(1000);
        ProjectionCounters next = readOnce(connection);
        if (next.sameRowsAs(last)) {
          return next;
        }
        last = next;
      }
      return last;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the projection's counters: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private boolean sameRowsAs(ProjectionCounters other) {
    return inserted == other.inserted && updated == other.updated && deleted == other.deleted;
  }

  private static ProjectionCounters readOnce(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT (SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables),"
                    + " (SELECT coalesce(sum(n_tup_upd), 0) FROM pg_stat_user_tables),"
                    + " (SELECT coalesce(sum(n_tup_del), 0) FROM pg_stat_user_tables),"
                    + " (SELECT xact_commit FROM pg_stat_database"
                    + "   WHERE datname = current_database()),"
                    + " pg_database_size(current_database())")) {
      rows.next();
      return new ProjectionCounters(
          rows.getLong(1), rows.getLong(2), rows.getLong(3), rows.getLong(4), rows.getLong(5));
    }
  }

  /** The change since {@code before}, per step, under the scale report's keys. */
  Map<String, Double> perStep(ProjectionCounters before, double steps) {
    Map<String, Double> figures = new LinkedHashMap<>();
    figures.put("projectionRowsInsertedPerStep", (inserted - before.inserted) / steps);
    figures.put("projectionRowsUpdatedPerStep", (updated - before.updated) / steps);
    figures.put("projectionRowsDeletedPerStep", (deleted - before.deleted) / steps);
    figures.put("projectionCommitsPerStep", (commits - before.commits) / steps);
    figures.put("projectionBytesPerStep", (bytes - before.bytes) / steps);
    return figures;
  }
}
