package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecoveryGapsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aKillOfTheWorkerThatRanTheLastStep_measuresUntilTheNextStepOnAnyWorker() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(start("s1", 1, 1_000), start("s1", 2, 13_000), start("s2", 2, 9_000)),
            List.of(new RecoveryGaps.Kill(1, 2_000)),
            Map.of());

    assertThat(gaps.gaps()).extracting(RecoveryGaps.Gap::millis).containsExactly(11_000L);
    assertThat(gaps.seconds(99)).isEqualTo(11.0);
    assertThat(gaps.summary()).startsWith("recovery p50=11.0 s p99=11.0 s (samples=1");
  }

  @Test
  void sessionsOfOtherWorkers_andSettledSessions_giveNoSample() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(start("other", 7, 1_000), start("other", 8, 5_000), start("settled", 1, 1_000)),
            List.of(new RecoveryGaps.Kill(1, 2_000)),
            Map.of());

    assertThat(gaps.gaps()).isEmpty();
    assertThat(gaps.seconds(99)).isZero();
  }

  @Test
  void aSessionPausedForADecision_isMeasuredFromTheDecision() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(start("paused", 1, 1_000), start("paused", 2, 66_000)),
            List.of(new RecoveryGaps.Kill(1, 2_000)),
            Map.of("paused", List.of(30_000L, 59_000L)));

    assertThat(gaps.gaps()).extracting(RecoveryGaps.Gap::millis).containsExactly(7_000L);
  }

  @Test
  void aGapWithAnotherKillInside_isLeftOutOfTheSingleKillFigure_andNamedAmongTheLongest() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(
                start("alone", 1, 1_000),
                start("alone", 3, 6_000),
                start("twice", 1, 1_000),
                start("twice", 3, 25_000)),
            List.of(new RecoveryGaps.Kill(1, 2_000), new RecoveryGaps.Kill(2, 10_000)),
            Map.of());

    assertThat(gaps.seconds(100)).isEqualTo(23.0);
    assertThat(gaps.singleKill().gaps())
        .extracting(RecoveryGaps.Gap::session)
        .containsExactly("alone");
    assertThat(gaps.longest(1)).isEqualTo("[twice 23.0 s after pid 1 (1 more kills in it)]");
    assertThat(gaps.longerThan(Duration.ofSeconds(15))).isEmpty();
    assertThat(gaps.longerThan(Duration.ofSeconds(5)))
        .extracting(RecoveryGaps.Gap::session)
        .containsExactly("twice");
  }

  @Test
  void percentiles_takeTheNearestRank() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(
                start("a", 1, 0),
                start("a", 2, 1_000),
                start("b", 1, 0),
                start("b", 2, 2_000),
                start("c", 1, 0),
                start("c", 2, 9_000)),
            List.of(new RecoveryGaps.Kill(1, 0)),
            Map.of());

    assertThat(gaps.seconds(50)).isEqualTo(2.0);
    assertThat(gaps.seconds(99)).isEqualTo(9.0);
  }

  private static JsonNode start(String session, long pid, long at) {
    ObjectNode line = JSON.createObjectNode();
    line.put("sessionId", session);
    line.put("pid", pid);
    line.put("phase", "start");
    line.put("at", at);
    return line;
  }
}
