package io.durableagents.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.workflow.RunResult;
import io.durableagents.workflow.TriggerEnvelope;
import io.temporal.worker.WorkerFactoryOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs started by a trigger envelope, with attachments read from the artifact store. */
class TriggerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  /** Remembers what each model call was given. */
  static final class Recording implements ModelProvider {
    final List<ModelRequest> requests = new CopyOnWriteArrayList<>();
    private final ModelProvider delegate;

    Recording(ModelProvider delegate) {
      this.delegate = delegate;
    }

    @Override
    public ModelResponse generate(ModelRequest request, ModelStream stream) {
      requests.add(request);
      return delegate.generate(request, stream);
    }
  }

  private static TriggerEnvelope envelope(String artifactId) throws Exception {
    return TriggerEnvelope.newBuilder()
        .setId("evt-1")
        .setSource("email")
        .setTrigger("invoice.received")
        .setPayload(JSON.readTree("{\"from\":\"billing@example.org\",\"amount\":120}"))
        .setKeys(JSON.readTree("{\"customerId\":\"c-9\"}"))
        .setThread("thread-42")
        .setReceivedAt(1_700_000_000_000L)
        .setAttachments(List.of(new Attachment(artifactId, "invoice.txt", "text/plain")))
        .build();
  }

  @Test
  void aTriggerWithAnAttachment_reachesTheModelAsAJsonBlockAndAFilePart_andToolsSeeTheEnvelope()
      throws Exception {
    Recording model =
        new Recording(
            Scripts.of(
                "{'turns':[{'toolCalls':[{'name':'trigger_info','arguments':{}}]},{'text':'filed'}]}"));
    try (SessionTestKit kit =
        new SessionTestKit(
            dir, model, agent -> agent.setMaxSteps(5), WorkerFactoryOptions.newBuilder())) {
      String artifactId =
          kit.artifacts.put("INVOICE 120 EUR".getBytes(StandardCharsets.UTF_8), "text/plain");

      RunResult result = kit.sendTrigger("trigger-1", envelope(artifactId));

      assertThat(result.status()).isEqualTo(RunStatus.FINISHED);
      ModelRequest first = model.requests.get(0);
      Message start = first.messages().get(0);
      assertThat(start.role()).isEqualTo(Role.USER);
      assertThat(start.text())
          .startsWith("```json")
          .contains("\"source\" : \"email\"")
          .contains("\"trigger\" : \"invoice.received\"")
          .contains("billing@example.org")
          .doesNotContain("thread-42")
          .doesNotContain("customerId");
      assertThat(start.attachments())
          .extracting(Attachment::artifactId)
          .containsExactly(artifactId);
      assertThat(new String(first.attachments().get(artifactId).bytes(), StandardCharsets.UTF_8))
          .isEqualTo("INVOICE 120 EUR");
      // The transcript keeps the reference only; the bytes are read per call.
      Message stored = kit.store.readMessages("trigger-1", 1).get(0);
      assertThat(stored.attachments())
          .singleElement()
          .satisfies(a -> assertThat(a.artifactId()).isEqualTo(artifactId));
      assertThat(model.requests.get(1).attachments()).containsKey(artifactId);
      // The rest of the envelope is for tools.
      assertThat(result.toolCalls().get(0).result().get("thread").asText()).isEqualTo("thread-42");
      assertThat(result.toolCalls().get(0).result().get("keys").get("customerId").asText())
          .isEqualTo("c-9");
      assertThat(result.toolCalls().get(0).result().get("id").asText()).isEqualTo("evt-1");
    }
  }

  @Test
  void aDeletedArtifact_failsTheRunWithArtifactNotFound() throws Exception {
    try (SessionTestKit kit =
        new SessionTestKit(
            dir,
            Scripts.of("{'turns':[{'text':'never'}]}"),
            agent -> agent.setMaxSteps(5),
            WorkerFactoryOptions.newBuilder())) {
      String artifactId = kit.artifacts.put(new byte[] {1, 2, 3}, "application/pdf");
      kit.artifacts.delete(artifactId);

      RunResult result = kit.sendTrigger("trigger-2", envelope(artifactId));

      assertThat(result.status()).isEqualTo(RunStatus.FAILED);
      assertThat(result.error().code()).isEqualTo("artifact_not_found");
      assertThat(result.error().message()).contains(artifactId);
    }
  }
}
