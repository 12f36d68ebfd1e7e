package io.durableagents.mcp.internal;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.durableagents.mcp.McpServerOptions;
import io.durableagents.tools.RetryableToolException;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lists an MCP server's tools as agent tools and runs their calls. A call sends the call's
 * idempotency key in the request's {@code _meta} ({@value #IDEMPOTENCY_KEY}), so a server can
 * recognise an attempt it already ran. A server that cannot be reached fails the attempt (retried
 * per the tool's policy, then an error result); an error the server answers with is the call's
 * error result at once.
 */
public final class McpToolCalls {
  private static final Logger log = LoggerFactory.getLogger(McpToolCalls.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The {@code _meta} field that carries the call's idempotency key. */
  public static final String IDEMPOTENCY_KEY = "idempotencyKey";

  private final McpServerOptions options;
  private final McpConnection connection;

  public McpToolCalls(McpServerOptions options, McpConnection connection) {
    this.options = options;
    this.connection = connection;
  }

  /**
   * The server's tools the agent takes, as listed now; invalid ones are left out with a warning.
   */
  public List<Tool> list() {
    McpConnection.Session session = connection.session();
    McpSyncClient client = session.client();
    List<McpSchema.Tool> listed = new ArrayList<>();
    try {
      McpSchema.ListToolsResult page = client.listTools();
      listed.addAll(page.tools());
      Set<String> cursors = new HashSet<>();
      while (page.nextCursor() != null && cursors.add(page.nextCursor())) {
        page = client.listTools(page.nextCursor());
        listed.addAll(page.tools());
      }
    } catch (McpError e) {
      throw new IllegalStateException(
          "MCP server '" + options.name() + "' refused to list its tools: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      String why = connection.why(session, e, options.toolTimeout());
      connection.reset(session);
      throw new IllegalStateException(
          "MCP server '" + options.name() + "' did not list its tools: " + why, e);
    }
    List<Tool> tools = new ArrayList<>();
    for (McpSchema.Tool tool : listed) {
      if (options.tools() == null || options.tools().contains(tool.name())) {
        Tool made = tool(tool);
        if (made != null) {
          tools.add(made);
        }
      }
    }
    if (options.tools() != null) {
      for (String wanted : options.tools()) {
        if (listed.stream().noneMatch(tool -> tool.name().equals(wanted))) {
          log.warn("MCP server '{}' does not list tool '{}'", options.name(), wanted);
        }
      }
    }
    return tools;
  }

  private Tool tool(McpSchema.Tool listed) {
    ObjectNode schema = McpSchemas.toJson(listed.inputSchema());
    String problem = McpSchemas.problem(schema);
    if (problem == null) {
      try {
        return Tool.newBuilder(listed.name())
            .setDescription(listed.description() == null ? "" : listed.description())
            .setInputSchema(schema)
            .setApprovalPolicy(options.approvalPolicy(listed.name()))
            .setTimeout(options.toolTimeout())
            .setMaxAttempts(options.maxAttempts())
            .setHandler((arguments, context) -> call(listed.name(), arguments, context))
            .build();
      } catch (IllegalArgumentException e) {
        problem = e.getMessage();
      }
    }
    log.warn(
        "MCP server '{}' lists tool '{}' with an invalid input schema, left out: {}",
        options.name(),
        listed.name(),
        problem);
    return null;
  }

  /** Runs one call of tool {@code name}; its result as the server gave it. */
  JsonNode call(String name, JsonNode arguments, ToolContext context) {
    McpConnection.Session session;
    try {
      session = connection.session();
    } catch (IllegalStateException e) {
      throw new RetryableToolException(e.getMessage(), e);
    }
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put(IDEMPOTENCY_KEY, context.idempotencyKey());
    McpSchema.CallToolRequest request =
        new McpSchema.CallToolRequest(
            name,
            MAPPER.convertValue(arguments, new TypeReference<Map<String, Object>>() {}),
            meta);
    McpSchema.CallToolResult result;
    try {
      result = session.client().callTool(request);
    } catch (McpError e) {
      // The server answered: another attempt gets the same answer.
      throw new IllegalStateException(
          "MCP server '" + options.name() + "' refused the call: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      if (context.isCancelled()) {
        throw e;
      }
      String why = connection.why(session, e, options.toolTimeout());
      connection.reset(session);
      throw new RetryableToolException(
          "MCP server '" + options.name() + "' did not answer the call: " + why, e);
    }
    return result(result);
  }

  /**
   * The result the model sees: the server's structured content when it sent some, else its content
   * blocks as it sent them, each with its {@code type} (text, image, audio, resource,
   * resource_link); a result the server marked as an error says so.
   */
  private static JsonNode result(McpSchema.CallToolResult result) {
    // The whole result, not its content list alone: the blocks' type is written from the list's
    // declared element type (McpSchema.Content), which a list on its own has lost.
    JsonNode sent = MAPPER.valueToTree(result);
    ObjectNode json = MAPPER.createObjectNode();
    if (Boolean.TRUE.equals(result.isError())) {
      json.put("isError", true);
    }
    if (result.structuredContent() != null) {
      json.set("structuredContent", sent.get("structuredContent"));
    } else {
      json.set("content", sent.has("content") ? sent.get("content") : MAPPER.createArrayNode());
    }
    return json;
  }
}
