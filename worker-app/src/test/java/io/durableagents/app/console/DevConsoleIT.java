package io.durableagents.app.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.app.testing.AgentsProcesses;
import io.durableagents.app.testing.LoopbackPorts;
import io.durableagents.app.testing.RealTemporal;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agents dev} on the real Temporal server prints its console's URL, and that console runs
 * the demo booking end to end: the send answers awaiting approval, the decision through the API
 * lets the run finish, and the approvals table records who decided, with the note.
 */
class DevConsoleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern CONSOLE_URL = Pattern.compile("console at (http://\\S+/)");

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void devPrintsTheConsoleUrl_andItsApiDecidesTheDemoBooking() throws Exception {
    int port = LoopbackPorts.freeWithAFreeUiPort();
    try (AgentsProcesses processes = new AgentsProcesses(dir)) {
      CompletableFuture<String> ready =
          processes.start(
              "console at ",
              "dev",
              "dev",
              "--port",
              String.valueOf(port),
              "--console-port",
              "0",
              "--temporal-cli",
              RealTemporal.cli().toString());
      processes.await(ready, "dev");
      Matcher url = CONSOLE_URL.matcher(ready.get());
      assertThat(url.find()).as(ready.get()).isTrue();
      URI console = URI.create(url.group(1));

      JsonNode me = get(console.resolve("api/me"));
      assertThat(me.path("auth").asText()).isEqualTo("local");
      String identity = me.path("identity").asText();

      JsonNode first =
          post(
              console.resolve("api/sessions/booking-1/messages"),
              "{\"input\":\"Book a table for 2 in Paris tonight at 19:30\"}",
              200);
      assertThat(first.path("status").asText()).isEqualTo("awaiting-approval");
      String approvalId = first.path("approval").path("approvalId").asText();

      JsonNode inbox = get(console.resolve("api/approvals?pending=true"));
      assertThat(inbox.path("approvals").findValuesAsText("approvalId")).contains(approvalId);

      JsonNode decided =
          post(
              console.resolve("api/sessions/booking-1/approvals/" + approvalId),
              "{\"approved\":true,\"note\":\"fine\",\"decidedBy\":\"mallory\"}",
              200);
      assertThat(decided.path("outcome").path("outcome").asText()).isEqualTo("approved");
      assertThat(decided.path("decidedBy").asText()).isEqualTo(identity);

      JsonNode session = awaitStatus(console.resolve("api/sessions/booking-1"), "finished");
      JsonNode approval = session.path("approvals").get(0);
      assertThat(approval.path("status").asText()).isEqualTo("approved");
      assertThat(approval.path("decidedBy").asText()).isEqualTo(identity);
      assertThat(approval.path("note").asText()).isEqualTo("fine");
      assertThat(approval.path("decidedAt").asLong()).isPositive();
      assertThat(session.path("temporalUrl").asText())
          .isEqualTo(
              "http://127.0.0.1:" + (port + 1000) + "/namespaces/default/workflows/booking-1");
    }
  }

  private JsonNode awaitStatus(URI session, String status) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    JsonNode body;
    do {
      body = get(session);
      if (status.equals(body.path("session").path("status").asText())) {
        return body;
      }
      Thread.sleep(200);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("the session did not become " + status + ": " + body);
  }

  private JsonNode get(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(uri + ": " + response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private JsonNode post(URI uri, String body, int expected)
      throws IOException, InterruptedException {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(uri)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(uri + ": " + response.body()).isEqualTo(expected);
    return JSON.readTree(response.body());
  }
}
