package io.durableagents.plugin;

/**
 * Whether sessions upsert their search attributes ({@link
 * io.durableagents.workflow.SessionSearchAttributes}), set with {@link
 * AgentsPluginOptions.Builder#setSearchAttributeUpserts}. An attribute that is not registered on
 * the namespace would fail every workflow task of a session that upserts it, so the default asks
 * first.
 */
public enum SearchAttributeUpserts {
  /**
   * The default: when its workers start, the plugin lists the namespace's search attributes, and
   * sessions upsert theirs only if all four are registered with their types. Otherwise it logs one
   * warning with the {@code temporal operator search-attribute create} commands.
   */
  WHEN_REGISTERED,
  /**
   * Upsert without asking: for a server that cannot list search attributes (the SDK's in-memory
   * test server) on which they are registered.
   */
  ALWAYS,
  /** Never upsert them. */
  NEVER
}
