package io.durableagents.workflow.internal.activity;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Usage;
import io.durableagents.session.RunStatus;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import java.util.List;
import org.junit.jupiter.api.Test;

class ModelTurnRequestTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CheckpointSave full =
      new CheckpointSave(
          "s-1",
          "exec-1",
          "helper",
          2,
          3,
          RunStatus.IN_PROGRESS,
          "tool-calls",
          4,
          List.of(Message.user("hi")),
          new Usage(5, 6),
          "sha256:f",
          1234L,
          List.of(),
          null,
          null,
          null);

  private ModelTurnRequest carrying(List<CheckpointSave> saves, String fingerprint) {
    return new ModelTurnRequest(
        "s-1",
        "helper",
        2,
        5,
        4,
        5,
        List.of(),
        "hash",
        "exec-1",
        fingerprint,
        new TurnSaves.Write(saves));
  }

  @Test
  void compactSaves_travelWithoutTheFieldsTheRequestCarries_andComeBackWhole() throws Exception {
    ModelTurnRequest request = carrying(List.of(full.compact(), full.compact()), "sha256:f");

    String json = JSON.writeValueAsString(request);
    assertThat(json)
        .containsOnlyOnce("\"sessionId\"")
        .containsOnlyOnce("\"executionId\"")
        .containsOnlyOnce("\"fingerprint\"")
        .containsOnlyOnce("\"agent\"");

    List<CheckpointSave> folded = JSON.readValue(json, ModelTurnRequest.class).foldedSaves();
    assertThat(folded).containsExactly(full, full);
  }

  @Test
  void eachKindOfSaves_comesBackAsItWasSent() throws Exception {
    for (TurnSaves saves :
        List.of(
            new TurnSaves.Write(List.of(full.compact())),
            new TurnSaves.Hold(List.of(full.compact())),
            new TurnSaves.WriteHeld(List.of(1, 2), List.of(full.compact())))) {
      ModelTurnRequest request =
          new ModelTurnRequest(
              "s-1", "helper", 2, 5, 4, 5, List.of(), "hash", "exec-1", "sha256:f", saves);

      ModelTurnRequest read =
          JSON.readValue(JSON.writeValueAsString(request), ModelTurnRequest.class);

      assertThat(read.saves()).isEqualTo(saves);
      assertThat(read.saves().holds()).isEqualTo(saves instanceof TurnSaves.Hold);
      assertThat(read.foldedSaves()).containsExactly(full);
    }
    assertThat(
            new ModelTurnRequest("s-1", "helper", 2, 5, 4, 5, List.of(), null, null, null, null)
                .saves())
        .isEqualTo(TurnSaves.none());
  }

  @Test
  void wholeSaves_areLeftAsTheyAre() {
    CheckpointSave other =
        new CheckpointSave(
            "s-1",
            "exec-0",
            "old-agent",
            1,
            1,
            RunStatus.IN_PROGRESS,
            null,
            0,
            List.of(),
            Usage.ZERO,
            "sha256:0",
            1L,
            List.of(),
            null,
            null,
            null);

    assertThat(carrying(List.of(other, full), "sha256:f").foldedSaves())
        .containsExactly(other, full);
    assertThat(carrying(List.of(full), null).foldedSaves()).containsExactly(full);
  }
}
