/** The MCP client connection and calls behind {@code McpToolProvider}; not an API. */
package io.durableagents.mcp.internal;
