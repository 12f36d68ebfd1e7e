package io.durableagents.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.testing.RealTemporal;
import java.awt.image.BufferedImage;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents bench --scale} in its tiny configuration: the real dev server and PostgreSQL it
 * starts, plugin and hand-written worker processes of their own, every point of the curves and
 * every target reported, and the plot a real PNG. It never checks how fast anything is.
 */
class ScaleBenchIT {
  @TempDir Path dir;

  @Test
  @Timeout(value = 8, unit = TimeUnit.MINUTES)
  void aTinyScaleRun_measuresEveryPoint_andDrawsThem() throws Exception {
    StringWriter progress = new StringWriter();
    ScaleConfig config = ScaleConfig.tiny();

    ScaleReport report =
        ScaleBench.run(config, RealTemporal.cli(), new PrintWriter(progress, true));

    // Both sides at every concurrency and worker count, and the local-mode point.
    int expected = 2 * config.concurrency().size() * config.workers().size() + 2;
    assertThat(report.points()).hasSize(expected);
    for (ScalePoint point : report.points()) {
      assertThat(point.sessions()).as(point.describe()).isGreaterThanOrEqualTo(point.concurrency());
      assertThat(point.stepsPerSecond()).as(point.describe()).isPositive();
      assertThat(point.stepP50Ms()).as(point.describe()).isPositive();
      assertThat(point.stepP99Ms()).as(point.describe()).isGreaterThanOrEqualTo(point.stepP50Ms());
      assertThat(point.sessionMaxMs())
          .as(point.describe())
          .isGreaterThanOrEqualTo(point.sessionP50Ms());
    }
    assertThat(report.points()).anyMatch(p -> p.mode().equals("local") && p.plugin());
    assertThat(report.figures().get("waitingSessions"))
        .isEqualTo((double) config.growthAndMemory().waitingSessions());
    assertThat(report.figures().get("historyGrowthRatio")).isPositive();
    for (ScaleReport.Target target : report.targets()) {
      assertThat(target.value()).as(target.label()).isNotNaN();
    }

    JsonNode json = new ObjectMapper().readTree(report.toJson());
    assertThat(json.get("points")).hasSize(expected);
    assertThat(json.get("targets")).hasSize(6);
    StringWriter table = new StringWriter();
    report.printTable(new PrintWriter(table, true));
    assertThat(table.toString()).contains("Targets").contains("hand-written");

    Path png = dir.resolve("scale.png");
    report.plot(png);
    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image).isNotNull();
    assertThat(image.getWidth()).isEqualTo(2 * 640);
  }
}
