package io.durableagents.app.crash;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How long sessions wait after a worker is SIGKILLed: for each kill, each session whose last step
 * before the kill started on the killed worker, the time from the kill to the session's next step
 * start (a ledger {@code start} line of a tool or a model turn, on any worker). A session with no
 * step after the kill (it had settled) gives no sample, nor does one that was paused for a decision
 * at the kill: the time it waits for a person is not recovery.
 *
 * <p>Ledger lines carry {@code sessionId}, {@code pid}, {@code phase} and {@code at} (epoch ms).
 */
final class RecoveryGaps {
  /** One SIGKILL: the worker's pid and when it died (epoch ms). */
  record Kill(long pid, long atMillis) {}

  /** One session's wait after a kill. */
  record Gap(String session, Kill kill, long millis) {}

  private final List<Gap> gaps;

  private RecoveryGaps(List<Gap> gaps) {
    this.gaps = gaps;
  }

  /**
   * The gaps the ledger lines show after {@code kills}; {@code decisions} has, per session, when
   * its decisions were accepted (epoch ms).
   */
  static RecoveryGaps of(
      Collection<JsonNode> ledgerLines, List<Kill> kills, Map<String, List<Long>> decisions) {
    Map<String, List<JsonNode>> starts = new TreeMap<>();
    for (JsonNode line : ledgerLines) {
      if ("start".equals(line.path("phase").asText())) {
        starts.computeIfAbsent(line.path("sessionId").asText(), s -> new ArrayList<>()).add(line);
      }
    }
    starts.values().forEach(lines -> lines.sort(Comparator.comparingLong(RecoveryGaps::at)));
    List<Gap> gaps = new ArrayList<>();
    for (Kill kill : kills) {
      starts.forEach(
          (session, lines) -> {
            JsonNode before = null;
            JsonNode after = null;
            for (JsonNode line : lines) {
              if (at(line) <= kill.atMillis()) {
                before = line;
              } else {
                after = line;
                break;
              }
            }
            if (before == null || after == null || before.path("pid").asLong() != kill.pid()) {
              return;
            }
            long next = at(after);
            boolean paused =
                decisions.getOrDefault(session, List.of()).stream()
                    .anyMatch(decided -> decided > kill.atMillis() && decided <= next);
            if (!paused) {
              gaps.add(new Gap(session, kill, next - kill.atMillis()));
            }
          });
    }
    return new RecoveryGaps(gaps);
  }

  private static long at(JsonNode line) {
    return line.path("at").asLong();
  }

  List<Gap> gaps() {
    return gaps;
  }

  /** The {@code percentile}-th percentile (nearest rank) of the gaps in seconds; 0 when none. */
  double seconds(double percentile) {
    if (gaps.isEmpty()) {
      return 0;
    }
    List<Long> sorted = gaps.stream().map(Gap::millis).sorted().toList();
    int rank = (int) Math.ceil(percentile / 100 * sorted.size());
    return sorted.get(Math.max(0, rank - 1)) / 1000.0;
  }

  /** {@code recovery p50=N s p99=N s}, with the count and the longest gap. */
  String summary() {
    return String.format(
        "recovery p50=%.1f s p99=%.1f s (samples=%d max=%.1f s)",
        seconds(50), seconds(99), gaps.size(), seconds(100));
  }
}
