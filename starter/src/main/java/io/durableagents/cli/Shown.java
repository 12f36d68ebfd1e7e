package io.durableagents.cli;

/**
 * How the CLI echoes a value the user gave in a message: control characters escaped ({@link
 * RunResultPrinter#printable}) and, past {@link #MAX_CHARS} characters, cut to a prefix followed by
 * the value's length, so a huge bad argument never floods the terminal or a log.
 */
public final class Shown {
  /** The longest value echoed whole. */
  public static final int MAX_CHARS = 80;

  private Shown() {}

  /** {@code value} as an error message shows it: {@code "abc… (120000 chars)"} when too long. */
  public static String value(String value) {
    if (value == null) {
      return "null";
    }
    if (value.length() <= MAX_CHARS) {
      return RunResultPrinter.printable(value);
    }
    // Cut between code points, never inside a surrogate pair.
    int end = value.offsetByCodePoints(0, value.codePointCount(0, MAX_CHARS));
    return RunResultPrinter.printable(value.substring(0, end)) + "… (" + value.length() + " chars)";
  }

  /**
   * {@code message} with every over-long {@code args} value in it shortened as by {@link #value}:
   * for messages that quote arguments verbatim (picocli's own).
   */
  static String shortened(String message, String[] args) {
    String shown = message;
    for (String arg : args) {
      if (arg == null || arg.length() <= MAX_CHARS) {
        continue;
      }
      // --option=VALUE: picocli quotes the value alone.
      int eq = arg.startsWith("-") ? arg.indexOf('=') : -1;
      if (eq > 0 && arg.length() - eq - 1 > MAX_CHARS) {
        String optionValue = arg.substring(eq + 1);
        shown = shown.replace(optionValue, value(optionValue));
      }
      shown = shown.replace(arg, value(arg));
    }
    return shown;
  }
}
