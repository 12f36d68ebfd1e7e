package io.durableagents.testing.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The text of a history file, read with a size limit and decoded as strict UTF-8, so a file that is
 * too large, endless ({@code /dev/zero}, a pipe) or not text is one failure of its own, not an
 * {@code OutOfMemoryError} or an exception that stops the whole check.
 */
public final class HistoryFileText {
  private static final int CHUNK = 1 << 20;

  private HistoryFileText() {}

  /** Why a file was not read: the message is the failure line's reason. */
  public static final class Unreadable extends IOException {
    private static final long serialVersionUID = 1L;

    Unreadable(String message) {
      super(message);
    }
  }

  /**
   * The UTF-8 text of {@code file}.
   *
   * @throws Unreadable when it is over {@code maxBytes} or not UTF-8 (the message says which)
   * @throws IOException when it cannot be opened or read
   */
  public static String read(Path file, long maxBytes) throws IOException {
    // A regular file is refused by its size, unread; other files (devices, pipes) by reading.
    if (Files.isRegularFile(file) && Files.size(file) > maxBytes) {
      throw tooLarge(maxBytes);
    }
    return decode(bounded(file, maxBytes));
  }

  /** The limit as people read it: {@code 256 MiB}, else bytes. */
  public static String describe(long bytes) {
    return bytes % (1 << 20) == 0 ? bytes / (1 << 20) + " MiB" : bytes + " bytes";
  }

  private static byte[] bounded(Path file, long maxBytes) throws IOException {
    // Chunks, so an endless file holds at most the limit before it is refused.
    List<byte[]> chunks = new ArrayList<>();
    long total = 0;
    try (InputStream in = Files.newInputStream(file)) {
      while (true) {
        byte[] chunk = in.readNBytes(CHUNK);
        if (chunk.length == 0) {
          break;
        }
        total += chunk.length;
        if (total > maxBytes) {
          throw tooLarge(maxBytes);
        }
        chunks.add(chunk);
      }
    }
    ByteArrayOutputStream all = new ByteArrayOutputStream((int) total);
    chunks.forEach(all::writeBytes);
    return all.toByteArray();
  }

  private static String decode(byte[] bytes) throws Unreadable {
    CharsetDecoder utf8 =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer input = ByteBuffer.wrap(bytes);
    try {
      return utf8.decode(input).toString();
    } catch (CharacterCodingException e) {
      // The decoder stops at the bad byte: its offset helps find it.
      throw new Unreadable("not UTF-8 text (invalid byte at offset " + input.position() + ")");
    }
  }

  private static Unreadable tooLarge(long maxBytes) {
    return new Unreadable(
        "larger than " + describe(maxBytes) + ", the limit of a history file; not read");
  }
}
