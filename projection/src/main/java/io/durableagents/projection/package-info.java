/**
 * The read model of the projection tables, one for the store and the client's reader: {@link
 * io.durableagents.projection.internal.ProjectionQueries} reads the rows on a connection the caller
 * holds, {@link io.durableagents.projection.ProjectionUrl} parses the JDBC URLs both accept and
 * opens read-only connections.
 */
package io.durableagents.projection;
