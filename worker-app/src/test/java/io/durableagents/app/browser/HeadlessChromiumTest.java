package io.durableagents.app.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the browser tests find Chromium, and how they fail without it (they never skip). */
class HeadlessChromiumTest {
  @TempDir Path dir;

  @Test
  void aMissingBinary_failsWithHowToInstallIt() {
    String missing = dir.resolve("no-chromium").toString();

    assertThatThrownBy(
            () -> HeadlessChromium.binary(Map.of("CHROMIUM", missing), "CHROMIUM", "/unused"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(missing)
        .hasMessageContaining("set CHROMIUM")
        .hasMessageContaining(".ci/run")
        .hasMessageContaining("apt-get install chromium chromium-driver");
  }

  @Test
  void withoutTheVariable_theDefaultPathIsUsed() {
    String sh = "/bin/sh";

    assertThat(HeadlessChromium.binary(Map.of(), "CHROMEDRIVER", sh)).isEqualTo(sh);
    assertThat(HeadlessChromium.binary(Map.of("CHROMEDRIVER", " "), "CHROMEDRIVER", sh))
        .isEqualTo(sh);
  }
}
