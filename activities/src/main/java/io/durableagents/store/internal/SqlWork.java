package io.durableagents.store.internal;

import java.sql.Connection;
import java.sql.SQLException;

/** Statements run on one connection, inside a transaction when the caller opened one. */
@FunctionalInterface
public interface SqlWork<T> {
  T apply(Connection connection) throws SQLException;
}
