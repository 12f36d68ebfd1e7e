package io.durableagents.app.agents;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * A JSON or YAML document read into a {@link JsonNode} tree, with the line every field and array
 * element starts on, so problems found while checking the tree can name their line. Jackson's data
 * binding stops at the first problem and forgets where values were; walking the streaming parser
 * keeps both. A key given twice in one object keeps its first value and is a {@link #problems()
 * problem} at each later line, so all of them are reported with the file's other problems.
 */
final class LocatedTree {
  private static final JsonFactory JSON = new JsonFactory();
  private static final YAMLFactory YAML = new YAMLFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String source;
  private final Map<String, Integer> lines = new HashMap<>();
  private final List<AgentsFileException.Problem> problems = new ArrayList<>();
  private JsonNode root;

  private LocatedTree(String source) {
    this.source = source;
  }

  /**
   * Reads {@code text}, YAML unless {@code source} ends in {@code .json} (YAML also takes JSON, but
   * the JSON parser explains JSON mistakes better). A document that does not parse is an {@link
   * AgentsFileException} at its line.
   */
  static LocatedTree read(String source, String text) {
    boolean json = source.toLowerCase(Locale.ROOT).endsWith(".json");
    LocatedTree tree = new LocatedTree(source);
    try (JsonParser parser = (json ? JSON : YAML).createParser(text)) {
      JsonToken first = parser.nextToken();
      tree.root = first == null ? NODES.nullNode() : tree.value(parser, "");
      tree.lines.putIfAbsent("", 1);
      return tree;
    } catch (JsonProcessingException e) {
      if (e.getCause() instanceof MarkedYAMLException yaml) {
        throw malformed(source, yaml.getProblemMark().getLine() + 1, "YAML", yamlMessage(yaml));
      }
      JsonLocation at = e.getLocation();
      throw malformed(
          source,
          at == null ? 0 : Math.max(at.getLineNr(), 0),
          json ? "JSON" : "YAML",
          firstLine(e));
    } catch (IOException e) {
      throw new AgentsFileException(
          List.of(new AgentsFileException.Problem(source, 0, "", "cannot read: " + e)));
    }
  }

  JsonNode root() {
    return root;
  }

  /** The keys given twice in one object, each at the line of its repetition. */
  List<AgentsFileException.Problem> problems() {
    return List.copyOf(problems);
  }

  /** The line {@code path} starts on, else the line of the nearest enclosing value that exists. */
  int line(String path) {
    for (String p = path; ; p = parent(p)) {
      Integer line = lines.get(p);
      if (line != null) {
        return line;
      }
      if (p.isEmpty()) {
        return 0;
      }
    }
  }

  static String child(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  static String element(String path, int index) {
    return path + "[" + index + "]";
  }

  private static String parent(String path) {
    int cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
    return cut < 0 ? "" : path.substring(0, cut);
  }

  /** The value at the parser's current token; records its line under {@code path}. */
  private JsonNode value(JsonParser parser, String path) throws IOException {
    lines.putIfAbsent(path, parser.currentTokenLocation().getLineNr());
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        ObjectNode object = NODES.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          String at = child(path, name);
          int line = parser.currentTokenLocation().getLineNr();
          parser.nextToken();
          if (object.has(name)) {
            problems.add(
                new AgentsFileException.Problem(
                    source, line, at, "appears twice (first at line " + lines.get(at) + ")"));
            parser.skipChildren();
            continue;
          }
          // The line of a field is its key's: a block scalar's text starts on the next line.
          lines.put(at, line);
          object.set(name, value(parser, at));
        }
        return object;
      }
      case START_ARRAY -> {
        ArrayNode array = NODES.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          array.add(value(parser, element(path, array.size())));
        }
        return array;
      }
      case VALUE_STRING -> {
        return NODES.textNode(parser.getText());
      }
      case VALUE_NUMBER_INT -> {
        return NODES.numberNode(parser.getBigIntegerValue());
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(parser.getDecimalValue());
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return NODES.booleanNode(parser.getBooleanValue());
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> {
        // YAML's binary and other embedded values: their text is what a person wrote.
        return NODES.textNode(parser.getText());
      }
    }
  }

  private static AgentsFileException malformed(
      String source, int line, String format, String message) {
    return new AgentsFileException(
        List.of(
            new AgentsFileException.Problem(
                source, line, "", "not valid " + format + ": " + message)));
  }

  /**
   * SnakeYAML's problem and its context in one line: the full message spans lines, with excerpts of
   * the file (and Jackson's location of the error is off for some, such as a tab).
   */
  private static String yamlMessage(MarkedYAMLException e) {
    String problem = e.getProblem() == null ? "malformed" : e.getProblem().strip();
    if (e.getContext() == null || e.getContextMark() == null) {
      return problem;
    }
    return problem
        + " ("
        + e.getContext().strip()
        + " that starts at line "
        + (e.getContextMark().getLine() + 1)
        + ")";
  }

  /** The parser's own explanation, without the excerpt and location lines Jackson appends. */
  private static String firstLine(JsonProcessingException e) {
    String message = e.getOriginalMessage();
    if (message == null) {
      return e.getClass().getSimpleName();
    }
    return message.strip().lines().findFirst().orElse(message).strip();
  }
}
