/**
 * The tools of MCP servers as agent tools: {@link io.durableagents.mcp.McpServerOptions} names a
 * server (stdio or streamable HTTP), {@link io.durableagents.mcp.McpToolProvider} gives its tools
 * to {@link io.durableagents.agent.Agent.Builder#addToolProvider}.
 */
package io.durableagents.mcp;
