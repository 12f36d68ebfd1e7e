package io.durableagents.mcp.internal;

import io.durableagents.mcp.McpServerOptions;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Refuses a stdio server's command that cannot run before its process is started, in words that say
 * why: not on the PATH, no executable file.
 */
final class Commands {
  private Commands() {}

  static void requireRunnable(McpServerOptions options) {
    String command = options.command();
    if (command.contains(File.separator)) {
      if (!isExecutableFile(Path.of(command))) {
        throw notFound(options, "no executable file " + command);
      }
      return;
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(Pattern.quote(File.pathSeparator), -1)) {
        if (!dir.isEmpty() && isExecutableFile(Path.of(dir, command))) {
          return;
        }
      }
    }
    throw notFound(options, "'" + command + "' is not on the PATH");
  }

  private static boolean isExecutableFile(Path path) {
    return Files.isRegularFile(path) && Files.isExecutable(path);
  }

  private static IllegalStateException notFound(McpServerOptions options, String why) {
    return new IllegalStateException(
        "MCP server '" + options.name() + "' cannot be started: " + why);
  }
}
