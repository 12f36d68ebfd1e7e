package io.durableagents.session;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that builds its {@link SessionTestKit} in a fresh directory; the kit is closed after each
 * test.
 */
abstract class SessionKitTest {
  @TempDir Path dir;
  SessionTestKit kit;

  @AfterEach
  void closeKit() {
    if (kit != null) {
      kit.close();
    }
  }
}
