package io.durableagents.app.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Recovery times from ledger lines: which sessions a kill held, and when each went on. */
class RecoveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<JsonNode> lines = new ArrayList<>();

  @Test
  void aKilledWorkersSessionsInFlight_recoverAtTheirNextStart() {
    line("s1", "a1", 1, 100, "start", 1_000);
    line("s1", "a1", 1, 100, "end", 1_100); // done before the kill: not held
    line("s2", "a2", 1, 100, "start", 1_900); // in flight on the killed worker
    line("s3", "a3", 1, 200, "start", 1_950); // in flight on another worker: not held
    line("s2", "a2", 2, 300, "start", 12_000); // the retry, 10 s after the kill
    line("s1", "a4", 1, 300, "start", 13_000);
    line("s3", "a3", 1, 200, "end", 2_100);

    Recovery.Times times =
        new Recovery(lines)
            .afterWorkerKills(
                List.of(new Timeline.Fault(Timeline.Kind.WORKER_KILL, 2_000, 5_000, 100)));

    assertThat(times.millis()).containsExactly(10_000L);
    assertThat(times.notRecovered()).isZero();
  }

  @Test
  void aServerKill_holdsEverySessionInFlight_andOneThatNeverStartsAgainIsCounted() {
    line("s1", "a1", 1, 100, "start", 1_000);
    line("s2", "a2", 1, 200, "start", 1_500);
    line("s3", "a3", 1, 300, "start", 1_800);
    line("s1", "a1", 1, 100, "end", 3_000); // its report is lost with the server
    line("s1", "a1", 2, 100, "start", 9_000);
    line("s3", "a3", 1, 300, "end", 2_500); // its last step, reported after the restart

    Recovery.Times times =
        new Recovery(lines)
            .afterServerKills(
                List.of(new Timeline.Fault(Timeline.Kind.SERVER_KILL, 2_000, 4_000, 999)));

    assertThat(times.millis()).containsExactly(7_000L);
    assertThat(times.finishedAcross()).isEqualTo(1);
    assertThat(times.notRecovered()).isEqualTo(1);
    assertThat(times.percentile(50)).isEqualTo(7_000L);
    assertThat(times.percentile(99)).isEqualTo(7_000L);
  }

  private void line(String session, String activity, int attempt, long pid, String phase, long ts) {
    lines.add(
        JSON.createObjectNode()
            .put("kind", "tool")
            .put("sessionId", session)
            .put("activityId", activity)
            .put("attempt", attempt)
            .put("pid", pid)
            .put("phase", phase)
            .put("ts", ts));
  }
}
