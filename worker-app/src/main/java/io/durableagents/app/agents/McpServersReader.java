package io.durableagents.app.agents;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.mcp.McpServerOptions;
import io.durableagents.mcp.McpToolProvider;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.ToolProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code mcpServers} of an agents file: the servers at the top level (one connection each,
 * shared by the agents that use it), and each agent's choice of their tools and approvals. Problems
 * go to the file's reader, with their lines.
 */
final class McpServersReader {
  private static final List<String> SERVER_FIELDS =
      List.of(
          "command",
          "args",
          "env",
          "url",
          "headers",
          "optional",
          "toolTimeout",
          "connectTimeout",
          "maxAttempts");
  private static final List<String> CHOICE_FIELDS = List.of("server", "tools", "approval");
  private static final String SERVER_NAME = "[A-Za-z0-9_.-]{1,64}";

  private final AgentsFileReader reader;
  private final Map<String, McpToolProvider> servers = new LinkedHashMap<>();

  McpServersReader(AgentsFileReader reader, JsonNode node) {
    this.reader = reader;
    if (node == null) {
      return;
    }
    if (!node.isObject()) {
      reader.problem(
          "mcpServers",
          "expected an object of servers by name, got " + AgentsFileReader.describe(node));
      return;
    }
    for (Map.Entry<String, JsonNode> entry : node.properties()) {
      String path = LocatedTree.child("mcpServers", entry.getKey());
      McpServerOptions options = server(entry.getKey(), entry.getValue(), path);
      if (options != null) {
        McpToolProvider provider = McpToolProvider.of(options);
        // A stdio server is a process of the worker's: it stops with the worker.
        Runtime.getRuntime().addShutdownHook(new Thread(provider::close, "mcp-close"));
        servers.put(entry.getKey(), provider);
      }
    }
  }

  /** The servers of the file, one provider (and connection) each. */
  List<McpToolProvider> providers() {
    return List.copyOf(servers.values());
  }

  private McpServerOptions server(String name, JsonNode node, String path) {
    if (!name.matches(SERVER_NAME)) {
      reader.problem(
          path, "'" + name + "' is not a server name: 1-64 letters, digits, '_', '.' or '-'");
      return null;
    }
    if (!node.isObject()) {
      reader.problem(
          path,
          "expected a server (an object with 'command' or 'url'), got "
              + AgentsFileReader.describe(node));
      return null;
    }
    reader.unknownFields(node, path, SERVER_FIELDS);
    McpServerOptions.Builder options = McpServerOptions.newBuilder(name);
    String command = reader.string(node, path, "command");
    String url = reader.string(node, path, "url");
    if ((command == null) == (url == null)) {
      reader.problem(path, "a server needs either 'command' (stdio) or 'url' (HTTP), not both");
      return null;
    }
    if (command != null) {
      options.setCommand(command, strings(node, path, "args"));
    } else {
      try {
        options.setUrl(new URI(url));
      } catch (URISyntaxException e) {
        reader.problem(LocatedTree.child(path, "url"), "not a URL: " + e.getMessage());
        return null;
      }
    }
    // Both are read for either kind of server: the options refuse the one that cannot apply.
    options.setEnv(stringMap(node, path, "env"));
    options.setHeaders(stringMap(node, path, "headers"));
    JsonNode optional = node.get("optional");
    if (optional != null) {
      if (optional.isBoolean()) {
        options.setOptional(optional.asBoolean());
      } else {
        reader.problem(
            LocatedTree.child(path, "optional"),
            "expected true or false, got " + AgentsFileReader.describe(optional));
      }
    }
    var toolTimeout = reader.duration(node, path, "toolTimeout");
    if (toolTimeout != null) {
      options.setToolTimeout(toolTimeout);
    }
    var connectTimeout = reader.duration(node, path, "connectTimeout");
    if (connectTimeout != null) {
      options.setConnectTimeout(connectTimeout);
    }
    Long attempts = reader.integer(node, path, "maxAttempts", 1);
    if (attempts != null) {
      options.setMaxAttempts(attempts.intValue());
    }
    try {
      return options.build();
    } catch (IllegalArgumentException e) {
      // The options name the server and the field; the path names the server already.
      String prefix = "MCP server '" + name + "': ";
      String message = e.getMessage();
      reader.problem(
          path, message.startsWith(prefix) ? message.substring(prefix.length()) : message);
      return null;
    }
  }

  /** The providers of an agent's {@code mcpServers} list: a server's name, or a choice of it. */
  List<ToolProvider> forAgent(JsonNode list, String path) {
    List<ToolProvider> providers = new ArrayList<>();
    if (list == null) {
      return providers;
    }
    if (!list.isArray()) {
      reader.problem(
          path,
          "expected a list of server names or choices, got " + AgentsFileReader.describe(list));
      return providers;
    }
    for (int i = 0; i < list.size(); i++) {
      String entryPath = LocatedTree.element(path, i);
      JsonNode entry = list.get(i);
      if (entry.isTextual()) {
        McpToolProvider server = known(entry.asText(), entryPath);
        if (server != null) {
          providers.add(server);
        }
      } else if (entry.isObject()) {
        McpToolProvider chosen = choice(entry, entryPath);
        if (chosen != null) {
          providers.add(chosen);
        }
      } else {
        reader.problem(
            entryPath,
            "expected a server name or {server, tools, approval}, got "
                + AgentsFileReader.describe(entry));
      }
    }
    return providers;
  }

  private McpToolProvider choice(JsonNode entry, String path) {
    reader.unknownFields(entry, path, CHOICE_FIELDS);
    String name = reader.string(entry, path, "server");
    if (name == null) {
      if (!entry.has("server")) {
        reader.problem(path, "missing required field 'server'");
      }
      return null;
    }
    McpToolProvider server = known(name, LocatedTree.child(path, "server"));
    if (server == null) {
      return null;
    }
    McpServerOptions.Builder choices = server.options().toBuilder();
    ApprovalPolicy approval = reader.approval(entry, path);
    if (approval != null) {
      choices.setDefaultApprovalPolicy(approval);
    }
    JsonNode tools = entry.get("tools");
    if (tools != null) {
      String toolsPath = LocatedTree.child(path, "tools");
      if (!tools.isArray()) {
        reader.problem(
            toolsPath, "expected a list of tool names, got " + AgentsFileReader.describe(tools));
        return null;
      }
      List<String> names = new ArrayList<>();
      for (int i = 0; i < tools.size(); i++) {
        String toolPath = LocatedTree.element(toolsPath, i);
        JsonNode tool = tools.get(i);
        String toolName = null;
        if (tool.isTextual()) {
          toolName = tool.asText();
        } else if (tool.isObject()) {
          reader.unknownFields(tool, toolPath, AgentsFileReader.TOOL_FIELDS);
          toolName = reader.string(tool, toolPath, "name");
          ApprovalPolicy own = reader.approval(tool, toolPath);
          if (toolName != null && own != null) {
            choices.setApprovalPolicy(toolName, own);
          }
        } else {
          reader.problem(
              toolPath,
              "expected a tool name or {name, approval}, got " + AgentsFileReader.describe(tool));
        }
        if (toolName != null) {
          names.add(toolName);
        }
      }
      choices.setTools(names);
    }
    return server.withChoices(choices.build());
  }

  private McpToolProvider known(String name, String path) {
    McpToolProvider server = servers.get(name);
    if (server == null) {
      reader.problem(
          path,
          "no MCP server named '"
              + name
              + "' in this file's mcpServers"
              + AgentsFileReader.suggestion(name, servers.keySet(), "known"));
    }
    return server;
  }

  private List<String> strings(JsonNode object, String objectPath, String field) {
    JsonNode value = object.get(field);
    List<String> strings = new ArrayList<>();
    if (value == null) {
      return strings;
    }
    String path = LocatedTree.child(objectPath, field);
    if (!value.isArray()) {
      reader.problem(path, "expected a list of strings, got " + AgentsFileReader.describe(value));
      return strings;
    }
    for (int i = 0; i < value.size(); i++) {
      JsonNode item = value.get(i);
      if (item.isTextual() || item.isNumber()) {
        strings.add(item.asText());
      } else {
        reader.problem(
            LocatedTree.element(path, i),
            "expected a string, got " + AgentsFileReader.describe(item));
      }
    }
    return strings;
  }

  private Map<String, String> stringMap(JsonNode object, String objectPath, String field) {
    JsonNode value = object.get(field);
    Map<String, String> map = new LinkedHashMap<>();
    if (value == null) {
      return map;
    }
    String path = LocatedTree.child(objectPath, field);
    if (!value.isObject()) {
      reader.problem(
          path, "expected an object of strings, got " + AgentsFileReader.describe(value));
      return map;
    }
    value
        .properties()
        .forEach(
            entry -> {
              if (entry.getValue().isTextual() || entry.getValue().isNumber()) {
                map.put(entry.getKey(), entry.getValue().asText());
              } else {
                reader.problem(
                    LocatedTree.child(path, entry.getKey()),
                    "expected a string, got " + AgentsFileReader.describe(entry.getValue()));
              }
            });
    return map;
  }
}
