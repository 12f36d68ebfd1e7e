package io.durableagents.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolContext;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A tool result's content blocks are recorded as the MCP server sent them, each with its {@code
 * type}, for every kind of block the SDK knows: text, image, audio, an embedded resource (text or
 * blob) and a resource link. The server is a real process ({@link McpTestServer} over stdio) whose
 * {@code content} tool answers with the block it is given.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class McpResultContentTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private McpToolProvider source;
  private Tool content;

  @BeforeAll
  void startServer() {
    List<String> command = McpServerProcess.command("stdio");
    source =
        McpToolProvider.of(
            McpServerOptions.newBuilder("blocks")
                .setCommand(command.get(0), command.subList(1, command.size()))
                .setTools(List.of("content"))
                .build());
    content = source.listTools().get(0);
  }

  @AfterAll
  void stopServer() {
    source.close();
  }

  @Test
  void aTextBlock_isRecordedAsSent_withItsType() throws Exception {
    assertRecordedAsSent("{\"type\": \"text\", \"text\": \"sunny, 21 degrees\"}");
  }

  @Test
  void anImageBlock_isRecordedAsSent_withItsTypeAndAnnotations() throws Exception {
    assertRecordedAsSent(
        "{\"type\": \"image\", \"data\": \"iVBORw0KGgo=\", \"mimeType\": \"image/png\","
            + " \"annotations\": {\"audience\": [\"user\"], \"priority\": 0.5}}");
  }

  @Test
  void anAudioBlock_isRecordedAsSent_withItsType() throws Exception {
    assertRecordedAsSent(
        "{\"type\": \"audio\", \"data\": \"UklGRiQAAABXQVZF\", \"mimeType\": \"audio/wav\"}");
  }

  @Test
  void anEmbeddedResource_isRecordedAsSent_withItsType_textOrBlob() throws Exception {
    assertRecordedAsSent(
        "{\"type\": \"resource\", \"resource\": {\"uri\": \"file:///forecast/oslo.txt\","
            + " \"mimeType\": \"text/plain\", \"text\": \"sunny\"}}");
    assertRecordedAsSent(
        "{\"type\": \"resource\", \"resource\": {\"uri\": \"file:///forecast/oslo.bin\","
            + " \"mimeType\": \"application/octet-stream\", \"blob\": \"AAECAw==\"}}");
  }

  @Test
  void aResourceLink_isRecordedAsSent_withItsType() throws Exception {
    assertRecordedAsSent(
        "{\"type\": \"resource_link\", \"name\": \"oslo\", \"title\": \"Oslo forecast\","
            + " \"uri\": \"file:///forecast/oslo.txt\", \"description\": \"the week ahead\","
            + " \"mimeType\": \"text/plain\", \"size\": 1024}");
  }

  /** The server answers with {@code block}: the result records exactly it. */
  private void assertRecordedAsSent(String block) throws Exception {
    JsonNode sent = JSON.readTree(block);
    ToolContext context =
        ToolContext.newBuilder()
            .setToolCallId("call-1")
            .setSessionId("s")
            .setIdempotencyKey("k")
            .build();

    JsonNode result =
        (JsonNode) content.handler().execute(JSON.createObjectNode().set("block", sent), context);

    JsonNode expected = JSON.createObjectNode().set("content", JSON.createArrayNode().add(sent));
    assertThat(result.equals(SAME_NUMBERS, expected))
        .as("recorded %s, sent %s", result, expected)
        .isTrue();
  }

  /** Numbers by value: the SDK reads a block's size as a long, the test wrote an int. */
  private static final Comparator<JsonNode> SAME_NUMBERS =
      (a, b) ->
          a.isNumber() && b.isNumber()
              ? a.decimalValue().compareTo(b.decimalValue())
              : a.equals(b) ? 0 : 1;
}
