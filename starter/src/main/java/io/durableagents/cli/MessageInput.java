package io.durableagents.cli;

import io.durableagents.workflow.Limits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where {@code send} takes its message from: the TEXT argument as given (an {@code @} in it is
 * text), {@code --input-file PATH}, or standard input ({@code -} as TEXT or as PATH). Files and
 * standard input are read as strict UTF-8 and never further than a message within {@link
 * Limits#INPUT_CHARS} can reach; every problem is a usage error (exit 2) naming its source.
 */
final class MessageInput {
  /** The token that names standard input. */
  static final String STDIN = "-";

  /** A message of INPUT_CHARS UTF-16 characters is at most three UTF-8 bytes per character. */
  static final int MAX_BYTES = 3 * Limits.INPUT_CHARS;

  private MessageInput() {}

  /** The message: {@code text}, or what {@code inputFile} (or {@code stdin} for "-") holds. */
  static String resolve(String text, String inputFile, InputStream stdin) {
    if (text != null && inputFile != null) {
      throw usage("Give the message either as TEXT or with --input-file, not both.");
    }
    if (text == null && inputFile == null) {
      throw usage(
          "Missing the message: give TEXT, --input-file PATH, or - to read standard input.");
    }
    if (inputFile == null && !STDIN.equals(text)) {
      return text;
    }
    String source = inputFile == null ? STDIN : inputFile;
    if (STDIN.equals(source)) {
      return decode(readBounded(stdin, "standard input"), "standard input");
    }
    return decode(readFile(source), "--input-file " + RunResultPrinter.printable(source));
  }

  private static byte[] readFile(String name) {
    Path path;
    try {
      path = Path.of(name);
    } catch (java.nio.file.InvalidPathException e) {
      throw usage(
          "Invalid --input-file path '"
              + RunResultPrinter.printable(name)
              + "': "
              + e.getReason()
              + ".");
    }
    if (Files.isDirectory(path)) {
      throw usage("--input-file " + shown(path) + " is a directory, not a file.");
    }
    try {
      if (Files.isRegularFile(path) && Files.size(path) > MAX_BYTES) {
        throw usage(tooLong("--input-file " + shown(path) + " (" + Files.size(path) + " bytes)"));
      }
      try (InputStream in = Files.newInputStream(path)) {
        return readBounded(in, "--input-file " + shown(path));
      }
    } catch (NoSuchFileException e) {
      throw usage("--input-file " + shown(path) + " does not exist.");
    } catch (IOException e) {
      throw usage("Cannot read --input-file " + shown(path) + ": " + e.getMessage());
    }
  }

  /** At most {@link #MAX_BYTES}; more is refused without reading on. */
  private static byte[] readBounded(InputStream in, String source) {
    try {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      if (bytes.length > MAX_BYTES) {
        throw usage(tooLong(source + " (more than " + MAX_BYTES + " bytes)"));
      }
      return bytes;
    } catch (IOException e) {
      throw usage("Cannot read " + source + ": " + e.getMessage());
    }
  }

  private static String decode(byte[] bytes, String source) {
    if (bytes.length == 0) {
      throw usage(
          source
              + " is empty. (To wait for the run in progress without sending anything, send \"\".)");
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw usage(source + " is not UTF-8 text.");
    }
  }

  private static String tooLong(String source) {
    return "The message in "
        + source
        + " is over the limit of "
        + Limits.INPUT_CHARS
        + " characters per send; attach large content as an artifact instead.";
  }

  /** A path as the user gave it, control characters escaped. */
  private static String shown(Path path) {
    return RunResultPrinter.printable(path.toString());
  }

  private static CliException usage(String message) {
    return new CliException(ExitCodes.USAGE, message);
  }
}
