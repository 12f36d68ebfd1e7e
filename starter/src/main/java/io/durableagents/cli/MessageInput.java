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
 * Where a command takes a user message from: the TEXT argument (or option) as given (an {@code @}
 * in it is text), a file option ({@code --input-file PATH} for {@code send}), or standard input
 * ({@code -} as TEXT or as PATH). Files and standard input are read as strict UTF-8 and never
 * further than a message within {@link Limits#INPUT_CHARS} can reach. A message of whitespace alone
 * is refused: the model would get a turn with nothing to answer. Every problem is a usage error
 * (exit 2) naming its source.
 */
final class MessageInput {
  /** The token that names standard input. */
  static final String STDIN = "-";

  /** A message of INPUT_CHARS UTF-16 characters is at most three UTF-8 bytes per character. */
  static final int MAX_BYTES = 3 * Limits.INPUT_CHARS;

  /**
   * What a command calls the two forms of its message, for error messages.
   *
   * @param text the text form: {@code TEXT}, or an option such as {@code --append-input}
   * @param fileOption the option naming a file (or {@code -})
   * @param emptyTextWaits true when an empty text is a request of its own (send: wait for the run)
   */
  record Form(String text, String fileOption, boolean emptyTextWaits) {}

  /** {@code send SESSION (TEXT | - | --input-file PATH)}. */
  static final Form SEND = new Form("TEXT", "--input-file", true);

  /** {@code fork ... (--append-input TEXT | - | --append-input-file PATH)}. */
  static final Form APPEND_INPUT = new Form("--append-input", "--append-input-file", false);

  private static final String WAIT_HINT =
      " (To wait for the run in progress without sending anything, send \"\".)";

  private MessageInput() {}

  /** {@link #resolve(Form, String, String, InputStream)} for {@code send}. */
  static String resolve(String text, String inputFile, InputStream stdin) {
    return resolve(SEND, text, inputFile, stdin);
  }

  /** The message: {@code text}, or what {@code inputFile} (or {@code stdin} for "-") holds. */
  static String resolve(Form form, String text, String inputFile, InputStream stdin) {
    if (text != null && inputFile != null) {
      throw usage(
          "Give the message either as "
              + form.text()
              + " or with "
              + form.fileOption()
              + ", not both.");
    }
    if (text == null && inputFile == null) {
      throw usage(
          "Missing the message: give "
              + form.text()
              + ", "
              + form.fileOption()
              + " PATH, or - to read standard input.");
    }
    if (inputFile == null && !STDIN.equals(text)) {
      if (text.isEmpty() && !form.emptyTextWaits()) {
        throw usage(form.text() + " is empty.");
      }
      return requireNotBlank(text, form.text(), form);
    }
    String source = inputFile == null ? STDIN : inputFile;
    if (STDIN.equals(source)) {
      return requireNotBlank(
          decode(readBounded(stdin, "standard input"), "standard input", form),
          "standard input",
          form);
    }
    String named = form.fileOption() + " " + Shown.value(source);
    return requireNotBlank(decode(readFile(form, source), named, form), named, form);
  }

  /**
   * Refuses whitespace alone (a lone newline from {@code echo | agents send s -} too): it would
   * start a model turn on no question. Empty text passes: {@code send} reads it as "wait".
   */
  private static String requireNotBlank(String message, String source, Form form) {
    if (message.isEmpty() || !message.isBlank()) {
      return message;
    }
    throw usage(
        source
            + " is only whitespace ("
            + message.length()
            + (message.length() == 1 ? " character" : " characters")
            + "); nothing was sent."
            + (form.emptyTextWaits() ? WAIT_HINT : ""));
  }

  private static byte[] readFile(Form form, String name) {
    String option = form.fileOption();
    Path path;
    try {
      path = Path.of(name);
    } catch (java.nio.file.InvalidPathException e) {
      throw usage(
          "Invalid " + option + " path '" + Shown.value(name) + "': " + e.getReason() + ".");
    }
    String named = option + " " + shown(path);
    if (Files.isDirectory(path)) {
      throw usage(named + " is a directory, not a file.");
    }
    try {
      if (Files.isRegularFile(path) && Files.size(path) > MAX_BYTES) {
        throw usage(tooLong(named + " (" + Files.size(path) + " bytes)"));
      }
      try (InputStream in = Files.newInputStream(path)) {
        return readBounded(in, named);
      }
    } catch (NoSuchFileException e) {
      throw usage(named + " does not exist.");
    } catch (IOException e) {
      throw usage("Cannot read " + named + ": " + e.getMessage());
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

  private static String decode(byte[] bytes, String source, Form form) {
    if (bytes.length == 0) {
      throw usage(source + " is empty." + (form.emptyTextWaits() ? WAIT_HINT : ""));
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

  /** A path as the user gave it, control characters escaped, a long one cut short. */
  private static String shown(Path path) {
    return Shown.value(path.toString());
  }

  private static CliException usage(String message) {
    return new CliException(ExitCodes.USAGE, message);
  }
}
