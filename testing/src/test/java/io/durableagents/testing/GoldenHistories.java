package io.durableagents.testing;

import java.nio.file.Files;
import java.nio.file.Path;

/** The golden histories of module {@code workflows}, read where they are committed. */
final class GoldenHistories {
  private GoldenHistories() {}

  /** {@code workflows/src/test/resources/histories}, from this module's directory. */
  static Path directory() {
    Path dir = Path.of("..", "workflows", "src", "test", "resources", "histories").toAbsolutePath();
    if (!Files.isDirectory(dir)) {
      throw new IllegalStateException("no golden histories at " + dir);
    }
    return dir.normalize();
  }

  static Path file(String name) {
    return directory().resolve(name);
  }
}
