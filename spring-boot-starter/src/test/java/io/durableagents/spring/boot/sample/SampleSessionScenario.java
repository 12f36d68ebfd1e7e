package io.durableagents.spring.boot.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.client.AgentClient;
import io.durableagents.client.ApprovalRow;
import io.durableagents.client.ProjectionReader;
import io.durableagents.session.RunStatus;
import io.durableagents.spring.boot.AgentConsoleServer;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.workflow.RunResult;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The sample application's session, whatever Temporal it runs on: the {@link AgentClient} bean
 * starts it, it stops at book_table's approval, the approval is decided through the console the
 * application serves (its REST API, with a bearer token from the properties), and the run finishes
 * with the booking made.
 */
abstract class SampleSessionScenario {
  /** The console's approver and token, as the tests' properties set them. */
  static final String APPROVER = "alice";

  static final String TOKEN = "sample-token-0123456789";

  private static final ObjectMapper JSON = new ObjectMapper();

  @Autowired AgentClient client;
  @Autowired ProjectionReader projection;
  @Autowired AgentConsoleServer console;

  @Test
  void aSessionStopsAtItsApproval_theMountedConsoleDecidesIt_andTheRunFinishes() throws Exception {
    String sessionId = "sample-" + UUID.randomUUID();
    int bookingsBefore = ConciergeAgent.bookingCount();

    RunResult paused = client.send(sessionId, "Book a table for two in Lisbon at 20:00");
    assertThat(paused.status()).isEqualTo(RunStatus.AWAITING_APPROVAL);
    String approvalId = paused.approval().approvalId();
    assertThat(ConciergeAgent.bookingCount()).isEqualTo(bookingsBefore);

    assertThat(projection.approvals(sessionId, true))
        .extracting(ApprovalRow::approvalId)
        .containsExactly(approvalId);
    JsonNode pending = get("api/approvals?pending=true");
    assertThat(pending.path("approvals").findValuesAsText("approvalId")).contains(approvalId);

    JsonNode decided =
        post(
            "api/sessions/" + sessionId + "/approvals/" + approvalId,
            "{\"approved\": true, \"note\": \"fine\"}");
    assertThat(decided.path("decidedBy").asText()).isEqualTo(APPROVER);

    RunResult finished = client.awaitRun(sessionId);
    assertThat(finished.status()).isEqualTo(RunStatus.FINISHED);
    assertThat(ConciergeAgent.bookingCount()).isEqualTo(bookingsBefore + 1);
    assertThat(projection.approvals(sessionId, false))
        .singleElement()
        .satisfies(row -> assertThat(row.decidedBy()).isEqualTo(APPROVER));
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    return send(request(path).GET().build());
  }

  private JsonNode post(String path, String body) throws IOException, InterruptedException {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build());
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(console.url() + path))
        .timeout(Duration.ofSeconds(60))
        .header("Authorization", "Bearer " + TOKEN);
  }

  private static JsonNode send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }
}
