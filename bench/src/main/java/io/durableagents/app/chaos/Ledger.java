package io.durableagents.app.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.temporal.activity.Activity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An append-only JSON-lines file shared by every worker process of a chaos run: one {@code write}
 * per line on a channel opened in append mode (so lines of concurrent processes never interleave),
 * under a lock within the process, forced to disk before the call returns. A line written is an
 * effect that happened, whatever becomes of the process afterwards.
 */
final class Ledger {
  /** The tools' ledger in the ledger directory: a {@code start} and an {@code end} per attempt. */
  static final String TOOLS = "tools.jsonl";

  /** The model's ledger: a {@code start} and, once it has its answer, an {@code end} per call. */
  static final String MODEL = "model.jsonl";

  static final long PID = ProcessHandle.current().pid();
  private static final ObjectMapper JSON = new ObjectMapper();

  private final FileChannel channel;

  private Ledger(FileChannel channel) {
    this.channel = channel;
  }

  static Ledger open(Path file) {
    try {
      return new Ledger(
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.APPEND));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open the ledger " + file, e);
    }
  }

  /** A new line with what every line carries: the phase, the process, the activity, the time. */
  static ObjectNode line(String kind, String phase) {
    ObjectNode line = JSON.createObjectNode();
    line.put("kind", kind);
    line.put("phase", phase);
    line.put("pid", PID);
    // Tools and providers run on the activity's thread: the id is the same on every attempt, and
    // two ids for one call or one turn mean the workflow scheduled recorded work again.
    line.put("activityId", Activity.getExecutionContext().getInfo().getActivityId());
    line.put("ts", System.currentTimeMillis());
    return line;
  }

  synchronized void append(ObjectNode line) {
    try {
      ByteBuffer bytes =
          ByteBuffer.wrap((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every line of {@code file} (none when it does not exist); a line that is not JSON fails. */
  static List<JsonNode> read(Path file) throws IOException {
    List<JsonNode> lines = new ArrayList<>();
    if (!Files.exists(file)) {
      return lines;
    }
    int number = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      number++;
      try {
        lines.add(JSON.readTree(line));
      } catch (IOException e) {
        throw new IOException(file.getFileName() + " line " + number + " is not JSON: " + line, e);
      }
    }
    return lines;
  }
}
