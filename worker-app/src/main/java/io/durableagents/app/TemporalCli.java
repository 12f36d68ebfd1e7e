package io.durableagents.app;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the Temporal CLI binary ({@code temporal}), which runs the real development server. Looked
 * for, in order: an explicit path, the {@code TEMPORAL_CLI} environment variable, {@code temporal}
 * on the {@code PATH}, and where {@code scripts/install-temporal-cli} installs it.
 */
public final class TemporalCli {
  /** The CLI version {@code scripts/install-temporal-cli} installs. */
  public static final String VERSION = "1.9.1";

  private TemporalCli() {}

  /**
   * The binary, or empty when none is found. {@code explicit} (may be null) must exist if given.
   */
  public static Optional<Path> locate(Path explicit) {
    if (explicit != null) {
      if (!Files.isExecutable(explicit)) {
        throw new IllegalArgumentException("Temporal CLI not found or not executable: " + explicit);
      }
      return Optional.of(explicit);
    }
    String fromEnvironment = System.getenv("TEMPORAL_CLI");
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      Path path = Path.of(fromEnvironment);
      if (Files.isExecutable(path)) {
        return Optional.of(path);
      }
    }
    String searchPath = System.getenv("PATH");
    if (searchPath != null) {
      for (String dir : searchPath.split(File.pathSeparator, -1)) {
        if (!dir.isEmpty()) {
          Path candidate = Path.of(dir, "temporal");
          if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
            return Optional.of(candidate);
          }
        }
      }
    }
    Path installed = installDirectory().resolve("bin").resolve("temporal");
    return Files.isExecutable(installed) ? Optional.of(installed) : Optional.empty();
  }

  /**
   * Installs the CLI with {@code scripts/install-temporal-cli} (idempotent) and returns its binary;
   * the script's progress goes to {@code errorLog} (null: this process's standard error).
   *
   * @throws IllegalStateException when it cannot be installed, saying why
   */
  public static Path install(Path errorLog) {
    Path binary = Path.of(InstallScript.named("install-temporal-cli").run(errorLog));
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException("install-temporal-cli printed no executable: " + binary);
    }
    return binary;
  }

  /** Where {@code scripts/install-temporal-cli} puts this version (same rules as the script). */
  public static Path installDirectory() {
    String tools = System.getenv("AGENTS_TOOLS_DIR");
    if (tools == null || tools.isBlank()) {
      String cache = System.getenv("XDG_CACHE_HOME");
      Path cacheDir =
          cache == null || cache.isBlank()
              ? Path.of(System.getProperty("user.home"), ".cache")
              : Path.of(cache);
      tools = cacheDir.resolve("durable-agents").toString();
    }
    return Path.of(tools, "temporal-cli-" + VERSION);
  }
}
