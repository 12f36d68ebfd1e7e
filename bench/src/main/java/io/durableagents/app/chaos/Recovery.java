package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recovery times, from the ledgers. A worker kill's recovery, for each session the killed worker
 * held, is the time from the kill to the next {@code start} line of that session (a tool call or a
 * model turn, on any worker): the session's next step began. A session is held by the killed worker
 * when that worker wrote a {@code start} line for it before the kill without the {@code end} line
 * of the same attempt: work in flight on it when it died. The same for a server kill, over the
 * sessions with work in flight on any worker at the instant of the kill; there the attempt in
 * flight may finish after the kill on its live worker, and a session whose last step it was has no
 * later start: it is counted as finished across the kill. A held session with neither is counted as
 * not recovered.
 */
final class Recovery {
  /**
   * The recovery times in milliseconds; the held sessions whose step in flight finished after the
   * kill without another step after it; and those that never went on.
   */
  record Times(List<Long> millis, int finishedAcross, int notRecovered) {
    long percentile(double p) {
      if (millis.isEmpty()) {
        return -1;
      }
      List<Long> sorted = new ArrayList<>(millis);
      Collections.sort(sorted);
      int rank = (int) Math.ceil(p / 100.0 * sorted.size());
      return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }

    long max() {
      return millis.isEmpty() ? -1 : Collections.max(millis);
    }
  }

  private final List<JsonNode> lines;

  /** {@code lines}: every line of both ledgers. */
  Recovery(List<JsonNode> lines) {
    this.lines = lines;
  }

  /** After each of {@code kills} (worker kills: the killed worker's in-flight work only). */
  Times afterWorkerKills(List<Timeline.Fault> kills) {
    return measure(kills, true);
  }

  /** After each server kill: every session with work in flight at the kill. */
  Times afterServerKills(List<Timeline.Fault> kills) {
    return measure(kills, false);
  }

  private Times measure(List<Timeline.Fault> kills, boolean ofThePidOnly) {
    List<Long> millis = new ArrayList<>();
    int finishedAcross = 0;
    int notRecovered = 0;
    for (Timeline.Fault kill : kills) {
      Map<String, String> held = inFlight(kill, ofThePidOnly);
      for (Map.Entry<String, String> entry : held.entrySet()) {
        String session = entry.getKey();
        long next = Long.MAX_VALUE;
        for (JsonNode line : lines) {
          long ts = line.path("ts").asLong();
          if ("start".equals(line.path("phase").asText())
              && session.equals(line.path("sessionId").asText())
              && ts > kill.start()
              && ts < next) {
            next = ts;
          }
        }
        if (next != Long.MAX_VALUE) {
          millis.add(next - kill.start());
        } else if (endedAfter(entry.getValue(), kill.start())) {
          finishedAcross++;
        } else {
          notRecovered++;
        }
      }
    }
    return new Times(millis, finishedAcross, notRecovered);
  }

  /** Whether the attempt {@code attemptKey} has an end line after {@code instant}. */
  private boolean endedAfter(String attemptKey, long instant) {
    for (JsonNode line : lines) {
      if ("end".equals(line.path("phase").asText())
          && line.path("ts").asLong() > instant
          && attemptKey.equals(attemptKey(line))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sessions with a start line before the kill whose attempt has no end line before it, each with
   * (one of) its attempts in flight.
   */
  private Map<String, String> inFlight(Timeline.Fault kill, boolean ofThePidOnly) {
    Map<String, String> startedBy = new HashMap<>();
    Set<String> ended = new HashSet<>();
    for (JsonNode line : lines) {
      if (ofThePidOnly && line.path("pid").asLong() != kill.pid()) {
        continue;
      }
      if (line.path("ts").asLong() > kill.start()) {
        continue;
      }
      String attempt = attemptKey(line);
      if ("start".equals(line.path("phase").asText())) {
        startedBy.put(attempt, line.path("sessionId").asText());
      } else {
        ended.add(attempt);
      }
    }
    Map<String, String> sessions = new HashMap<>();
    startedBy.forEach(
        (attempt, session) -> {
          if (!ended.contains(attempt)) {
            sessions.put(session, attempt);
          }
        });
    return sessions;
  }

  /** One attempt of one activity on one process: its start and end lines share this key. */
  static String attemptKey(JsonNode line) {
    return line.path("kind").asText()
        + "/"
        + line.path("sessionId").asText()
        + "/"
        + line.path("activityId").asText()
        + "/"
        + line.path("attempt").asInt()
        + "/"
        + line.path("pid").asLong();
  }
}
