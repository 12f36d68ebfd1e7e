package io.durableagents.app.browser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the browser tests find Chromium, when they install it, and how they fail when they cannot
 * (they never skip). The real install: {@code HeadlessChromiumIT} on a machine without Chromium.
 */
class HeadlessChromiumTest {
  @TempDir Path dir;

  private final AtomicInteger installs = new AtomicInteger();

  @Test
  void aMissingConfiguredBinary_failsWithHowToInstallIt_withoutInstalling() {
    String missing = dir.resolve("no-chromium").toString();

    assertThatThrownBy(
            () ->
                HeadlessChromium.binary(
                    Map.of("CHROMIUM", missing), "CHROMIUM", "/unused", this::install))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(missing)
        .hasMessageContaining("set CHROMIUM")
        .hasMessageContaining("scripts/install-chromium")
        .hasMessageContaining("apt-get install chromium chromium-driver");
    assertThat(installs).hasValue(0);
  }

  @Test
  void withoutTheVariable_theDefaultPathIsUsed_withoutInstalling() {
    String sh = "/bin/sh";

    assertThat(HeadlessChromium.binary(Map.of(), "CHROMEDRIVER", sh, this::install)).isEqualTo(sh);
    assertThat(
            HeadlessChromium.binary(Map.of("CHROMEDRIVER", " "), "CHROMEDRIVER", sh, this::install))
        .isEqualTo(sh);
    assertThat(installs).hasValue(0);
  }

  @Test
  void aMissingDefaultBinary_isInstalled_thenUsed() {
    Path chromium = dir.resolve("chromium");

    String found =
        HeadlessChromium.binary(
            Map.of(), "CHROMIUM", chromium.toString(), () -> executable(chromium));

    assertThat(found).isEqualTo(chromium.toString());
    assertThat(installs).hasValue(1);
  }

  @Test
  void aFailedInstall_failsTheTest_withTheInstallersReason() {
    String missing = dir.resolve("chromium").toString();

    assertThatThrownBy(
            () ->
                HeadlessChromium.binary(
                    Map.of(),
                    "CHROMIUM",
                    missing,
                    () -> {
                      throw new IllegalStateException(
                          "install-chromium failed (exit 1): install-chromium: cannot install"
                              + " chromium chromium-driver: not root, and sudo asks for a password");
                    }))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(missing + " is missing")
        .hasMessageContaining("scripts/install-chromium could not install it")
        .hasMessageContaining("not root, and sudo asks for a password");
  }

  @Test
  void anInstallThatLeavesTheBinaryMissing_failsTheTest() {
    String missing = dir.resolve("chromium").toString();

    assertThatThrownBy(() -> HeadlessChromium.binary(Map.of(), "CHROMIUM", missing, this::install))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("scripts/install-chromium ran, but " + missing)
        .hasMessageContaining("set CHROMIUM");
    assertThat(installs).hasValue(1);
  }

  private void install() {
    installs.incrementAndGet();
  }

  private void executable(Path file) {
    install();
    try {
      Files.writeString(file, "#!/bin/sh\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
