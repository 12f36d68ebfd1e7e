package io.durableagents.app.hostile;

import io.durableagents.workflow.Limits;
import java.util.List;
import java.util.Random;

/**
 * A small seeded generator of what a hostile or careless client sends: texts that a session must
 * store exactly as given, texts it must refuse, session ids, ports and JSON documents of any shape.
 * Everything comes from one {@link Random}, so a seed reproduces a run.
 */
final class HostileInputs {
  /**
   * Characters that break naive handling: quotes, escapes, markup, shell and format metacharacters.
   */
  private static final String TRICKY_ASCII = "@-\"'\\/`$;|&<>{}[]()%*?!#~^=+,:.\t\n\r ";

  private static final String[] TRICKY_UNICODE = {
    "\u0000",
    "\u0001",
    "\u001b[31m",
    "\u007f",
    "\u0085",
    "\u00a0",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\ufffd",
    "\uffff",
    "é",
    "e\u0301",
    "中文",
    "\uD83D\uDE00",
    "\uD83D\uDC68\u200D\uD83D\uDC69",
    "\uD800\uDC00",
    "\\u0000",
    "\\ud800",
    "${jndi:x}",
    "{\"role\":\"assistant\"}",
    "</script>",
    "%s%n",
    "@/etc/hostname"
  };

  /** ASCII characters a session id may not contain. */
  private static final String NOT_IN_IDS = " /\\$;*?!#%&()[]{}<>|'\"~`,=+^";

  private static final String ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._:@-";

  private final Random random;

  HostileInputs(long seed) {
    this.random = new Random(seed);
  }

  Random random() {
    return random;
  }

  int between(int min, int maxInclusive) {
    return min + random.nextInt(maxInclusive - min + 1);
  }

  <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /**
   * A non-empty text a session must take and store exactly: any valid Unicode, up to {@code
   * maxChars}.
   */
  String validText(int maxChars) {
    StringBuilder text = new StringBuilder();
    int target = between(1, maxChars);
    while (text.length() < target) {
      switch (random.nextInt(4)) {
        case 0 -> text.append((char) between(0x20, 0x7e));
        case 1 -> text.append(TRICKY_ASCII.charAt(random.nextInt(TRICKY_ASCII.length())));
        case 2 -> text.append(TRICKY_UNICODE[random.nextInt(TRICKY_UNICODE.length)]);
        default -> text.appendCodePoint(validCodePoint());
      }
    }
    return text.toString();
  }

  /** Printable ASCII only, safe as a command-line argument in any locale; never starts with '-'. */
  String asciiArgument(int maxChars) {
    StringBuilder text = new StringBuilder();
    int target = between(1, maxChars);
    while (text.length() < target) {
      char c =
          random.nextBoolean()
              ? (char) between(0x21, 0x7e)
              : TRICKY_ASCII.charAt(
                  random.nextInt(TRICKY_ASCII.length() - 4)); // no tab, newlines, space
      text.append(c);
    }
    if (text.charAt(0) == '-') {
      text.setCharAt(0, '@');
    }
    return text.toString();
  }

  /**
   * Any code point but a lone surrogate: planes 0 to 2, plus some private use and noncharacters.
   */
  private int validCodePoint() {
    while (true) {
      int cp = random.nextInt(4) == 0 ? between(0x10000, 0x2FFFF) : between(0, 0xFFFF);
      if (Character.getType(cp) != Character.SURROGATE) {
        return cp;
      }
    }
  }

  /**
   * A text the session refuses, and why: too long, an unpaired surrogate, or too large serialized.
   */
  Refused refusedText() {
    return switch (random.nextInt(4)) {
      case 0 ->
          new Refused(
              "over the character limit",
              "a".repeat(Limits.INPUT_CHARS + between(1, 5000)),
              "over the limit of " + Limits.INPUT_CHARS);
      case 1 -> {
        String text = validText(200);
        int at =
            text.offsetByCodePoints(0, random.nextInt(text.codePointCount(0, text.length()) + 1));
        // Fenced by plain characters, so it can never pair with a neighbour.
        String lone =
            random.nextBoolean()
                ? (char) between(0xD800, 0xDBFF) + "x"
                : "x" + (char) between(0xDC00, 0xDFFF);
        yield new Refused(
            "an unpaired surrogate",
            text.substring(0, at) + lone + text.substring(at),
            "unpaired surrogate");
      }
      case 2 ->
          new Refused(
              "control characters over the request size",
              String.valueOf((char) between(1, 0x1f))
                  .repeat(Limits.INPUT_CHARS - random.nextInt(1000)),
              "bytes serialized, over the limit of " + Limits.REQUEST_BYTES);
      default ->
          new Refused(
              "ten megabytes",
              "x".repeat(10 * 1024 * 1024),
              "over the limit of " + Limits.INPUT_CHARS);
    };
  }

  /** A valid session id: 1-200 of the allowed characters, starting with a letter or digit. */
  String validSessionId(String prefix) {
    StringBuilder id = new StringBuilder(prefix);
    int extra = between(1, 12);
    for (int i = 0; i < extra; i++) {
      id.append(ID_CHARS.charAt(random.nextInt(ID_CHARS.length())));
    }
    return id.toString();
  }

  /** An invalid session id that is a safe command-line argument: not starting with '-'. */
  String invalidAsciiSessionId() {
    return switch (random.nextInt(4)) {
      case 0 -> "";
      case 1 -> "s".repeat(Limits.SESSION_ID_CHARS + between(1, 300));
      case 2 -> "." + validSessionId("x");
      default -> {
        String id = validSessionId("a");
        int at = between(1, id.length());
        yield id.substring(0, at)
            + NOT_IN_IDS.charAt(random.nextInt(NOT_IN_IDS.length()))
            + id.substring(at);
      }
    };
  }

  /**
   * An invalid session id of any characters (for API callers): controls, bidi overrides,
   * surrogates.
   */
  String invalidSessionId() {
    if (random.nextBoolean()) {
      return invalidAsciiSessionId();
    }
    String id = validSessionId("a");
    int at = between(1, id.length());
    return id.substring(0, at)
        + TRICKY_UNICODE[random.nextInt(TRICKY_UNICODE.length)]
        + id.substring(at);
  }

  /** A port a TCP address cannot have. */
  String invalidPort() {
    return switch (random.nextInt(3)) {
      case 0 -> String.valueOf(between(65536, 999_999));
      case 1 -> "0";
      default -> String.valueOf(between(100_000, Integer.MAX_VALUE - 1));
    };
  }

  /**
   * Bytes that are not UTF-8: valid text with a byte UTF-8 never uses, or a cut multi-byte
   * sequence.
   */
  byte[] notUtf8() {
    byte[] text = validText(50).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] bytes = java.util.Arrays.copyOf(text, text.length + 1);
    bytes[bytes.length - 1] = random.nextBoolean() ? (byte) 0xff : (byte) 0xe2;
    return bytes;
  }

  /**
   * A JSON document of any shape, biased towards the fields of the session's requests, at most
   * {@code depth} levels deep. String values may hold JSON escapes of lone surrogates.
   */
  String json(int depth) {
    int kind = depth <= 0 ? random.nextInt(4) : random.nextInt(7);
    return switch (kind) {
      case 0 -> "null";
      case 1 -> String.valueOf(random.nextBoolean() ? random.nextInt() : random.nextLong());
      case 2 -> random.nextBoolean() ? "true" : "1e999";
      case 3 -> jsonString();
      case 4 -> {
        StringBuilder array = new StringBuilder("[");
        int n = between(0, 3);
        for (int i = 0; i < n; i++) {
          array.append(i > 0 ? "," : "").append(json(depth - 1));
        }
        yield array.append(']').toString();
      }
      default -> {
        StringBuilder object = new StringBuilder("{");
        int n = between(0, 4);
        for (int i = 0; i < n; i++) {
          String key =
              pick(
                  List.of(
                      "input",
                      "messages",
                      "trigger",
                      "role",
                      "text",
                      "toolCalls",
                      "approvalId",
                      "approved",
                      "note",
                      "payload",
                      "attachments",
                      "sessionId",
                      "x"));
          object
              .append(i > 0 ? "," : "")
              .append('"')
              .append(key)
              .append("\":")
              .append(json(depth - 1));
        }
        yield object.append('}').toString();
      }
    };
  }

  private String jsonString() {
    return switch (random.nextInt(5)) {
      case 0 -> "\"user\"";
      case 1 -> "\"\\ud800\"";
      case 2 -> "\"" + "w".repeat(between(0, 3000)) + "\"";
      case 3 -> "\"\\u0000\\u001b[0m\\\"\"";
      default -> "\"" + asciiArgument(30).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    };
  }

  /** An input the session must refuse, what it is, and a fragment of the refusal's message. */
  record Refused(String what, String text, String reason) {}
}
