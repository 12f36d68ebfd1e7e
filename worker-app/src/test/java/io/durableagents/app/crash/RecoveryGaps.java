package io.durableagents.app.crash;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
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
 * step after the kill (it had settled) gives no sample. A session that was paused for a decision at
 * the kill waits for the person first: its gap starts when the decision was sent, since delivering
 * it to a session whose worker died is recovery too.
 *
 * <p>Ledger lines carry {@code sessionId}, {@code pid}, {@code phase} and {@code at} (epoch ms).
 */
final class RecoveryGaps {
  /** One SIGKILL: the worker's pid and when it died (epoch ms). */
  record Kill(long pid, long atMillis) {}

  /** One session's wait after a kill, from {@code fromMillis} (the kill or a later decision). */
  record Gap(String session, Kill kill, long fromMillis, long millis) {}

  private final List<Gap> gaps;
  private final List<Kill> kills;

  private RecoveryGaps(List<Gap> gaps, List<Kill> kills) {
    this.gaps = gaps;
    this.kills = kills;
  }

  /**
   * The gaps the ledger lines show after {@code kills}; {@code decisions} has, per session, when
   * its decisions were sent (epoch ms).
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
            long from =
                decisions.getOrDefault(session, List.of()).stream()
                    .filter(decided -> decided > kill.atMillis() && decided <= next)
                    .mapToLong(Long::longValue)
                    .max()
                    .orElse(kill.atMillis());
            gaps.add(new Gap(session, kill, from, next - from));
          });
    }
    return new RecoveryGaps(gaps, List.copyOf(kills));
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

  /** The gaps with no other kill inside them: what one kill alone costs. */
  RecoveryGaps singleKill() {
    return new RecoveryGaps(gaps.stream().filter(gap -> killsInside(gap) == 0).toList(), kills);
  }

  /**
   * The gaps longer than {@code perKill} for each kill they waited for: the kill they follow and
   * every later one inside them (the worker that took the session over may be killed too).
   */
  List<Gap> longerThan(Duration perKill) {
    return gaps.stream()
        .filter(gap -> gap.millis() > perKill.toMillis() * (1 + killsInside(gap)))
        .toList();
  }

  private long killsInside(Gap gap) {
    long from = gap.fromMillis();
    return kills.stream()
        .filter(k -> k.atMillis() > from && k.atMillis() < from + gap.millis())
        .count();
  }

  /**
   * The {@code count} longest gaps, each with the kills that fell inside it: a gap that spans
   * another kill waited for that one too.
   */
  String longest(int count) {
    return gaps.stream()
        .sorted(Comparator.comparingLong(Gap::millis).reversed())
        .limit(count)
        .map(
            gap ->
                String.format(
                    "%s %.1f s after pid %d (%d more kills in it)",
                    gap.session(), gap.millis() / 1000.0, gap.kill().pid(), killsInside(gap)))
        .toList()
        .toString();
  }
}
