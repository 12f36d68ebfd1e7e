package io.durableagents.app.browser;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Dimension;

/** The harness itself: the system's Chromium starts headless, with the viewport asked for. */
class HeadlessChromiumIT {
  @TempDir Path dir;

  @Test
  void theViewportIsTheSizeAskedFor_andScreenshotsHaveIt() throws Exception {
    Path page = dir.resolve("page.html");
    Files.writeString(page, "<!doctype html><title>t</title><p id=hello>Hello</p>");
    for (Dimension size : new Dimension[] {HeadlessChromium.DESKTOP, HeadlessChromium.NARROW}) {
      try (HeadlessChromium browser = HeadlessChromium.start(size)) {
        browser.open(URI.create(page.toUri().toString()));

        assertThat(browser.waitFor("#hello", Duration.ofSeconds(5)).getText()).isEqualTo("Hello");
        assertThat(browser.script("return {w: window.innerWidth, h: window.innerHeight};"))
            .isEqualTo(Map.of("w", (long) size.getWidth(), "h", (long) size.getHeight()));
        var image = ImageIO.read(browser.screenshot(dir.resolve("shot.png")).toFile());
        assertThat(image.getWidth()).isEqualTo(size.getWidth());
        assertThat(image.getHeight()).isEqualTo(size.getHeight());
      }
    }
  }
}
