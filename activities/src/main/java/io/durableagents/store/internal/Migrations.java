package io.durableagents.store.internal;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/** Brings a database up to the store's schema with Flyway. */
public final class Migrations {
  /** Where the migration scripts are, on the classpath. */
  public static final String LOCATION = "classpath:io/durableagents/store/migration";

  /**
   * The store's own schema history table, so that it never mixes with an application's Flyway
   * history when both share a PostgreSQL schema.
   */
  public static final String HISTORY_TABLE = "agent_store_schema_history";

  private Migrations() {}

  /** Applies the pending migrations; returns how many ran. */
  public static int migrate(DataSource dataSource) {
    Flyway flyway =
        Flyway.configure(Migrations.class.getClassLoader())
            .dataSource(dataSource)
            .locations(LOCATION)
            .table(HISTORY_TABLE)
            .failOnMissingLocations(true)
            // A schema that already holds other tables (a shared PostgreSQL schema) gets a
            // baseline below V1, so V1 still runs.
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load();
    return flyway.migrate().migrationsExecuted;
  }
}
