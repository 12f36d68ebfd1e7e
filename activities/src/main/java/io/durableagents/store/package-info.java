/**
 * The session store: the transcript, the checkpoint history and one row per session, kept in a JDBC
 * database (SQLite for a single machine, PostgreSQL when several workers share it). Open one with
 * {@link io.durableagents.store.AgentStores#open(String)}.
 */
package io.durableagents.store;
