package io.durableagents.app.crash;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
  void sessionsOfOtherWorkers_settledSessions_andPausedSessions_giveNoSample() {
    RecoveryGaps gaps =
        RecoveryGaps.of(
            List.of(
                start("other", 7, 1_000),
                start("other", 8, 5_000),
                start("settled", 1, 1_000),
                start("paused", 1, 1_000),
                start("paused", 2, 60_000)),
            List.of(new RecoveryGaps.Kill(1, 2_000)),
            Map.of("paused", List.of(59_000L)));

    assertThat(gaps.gaps()).isEmpty();
    assertThat(gaps.seconds(99)).isZero();
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
