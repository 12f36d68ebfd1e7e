package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.durableagents.conversation.Message;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkPatch.ToolResultPatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The builder makes the same patches, and the same JSON, as the record's constructor. */
class ForkPatchBuilderTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anEmptyBuilder_buildsNone() throws Exception {
    ForkPatch built = ForkPatch.newBuilder().build();

    assertThat(built).isEqualTo(ForkPatch.NONE);
    assertThat(built.summary()).isEqualTo("none");
    assertThat(JSON.writeValueAsString(built)).isEqualTo(JSON.writeValueAsString(ForkPatch.NONE));
  }

  @Test
  void everyPart_setByName_equalsThePositionalPatch_andItsJson() throws Exception {
    JsonNode rain = JSON.readTree("{\"forecast\":\"rain\"}");
    JsonNode vip = JSON.readTree("{\"vip\":true}");
    List<Message> transcript = List.of(Message.user("a different start"));

    ForkPatch built =
        ForkPatch.newBuilder()
            .setMessages(transcript)
            .setBusinessState(vip)
            .addToolResult("call_0_0", rain)
            .addToolResult("call_0_1", NullNode.getInstance())
            .setAppendInput("And now?")
            .build();
    ForkPatch positional =
        new ForkPatch(
            transcript,
            vip,
            List.of(
                new ToolResultPatch("call_0_0", rain),
                new ToolResultPatch("call_0_1", NullNode.getInstance())),
            "And now?");

    assertThat(built).isEqualTo(positional);
    assertThat(JSON.writeValueAsString(built)).isEqualTo(JSON.writeValueAsString(positional));
    assertThat(JSON.readValue(JSON.writeValueAsString(built), ForkPatch.class))
        .isEqualTo(positional);
    assertThat(built.summary())
        .isEqualTo(
            "messages(1) businessState toolResult(call_0_0) toolResult(call_0_1) appendInput");
  }

  @Test
  void aClearedBusinessState_isJsonNull_notLeftOut() {
    ForkPatch clearing = ForkPatch.newBuilder().setBusinessState(NullNode.getInstance()).build();

    assertThat(clearing).isEqualTo(new ForkPatch(null, NullNode.getInstance(), null, null));
    assertThat(clearing.summary()).isEqualTo("businessState");
    assertThat(clearing.problem()).isNull();
  }

  @Test
  void toBuilder_roundTripsEveryPart_andChangesOnlyWhatIsSet() throws Exception {
    ForkPatch original =
        ForkPatch.newBuilder()
            .setBusinessState(JSON.readTree("{\"plan\":\"a\"}"))
            .addToolResult("call_0_0", JSON.readTree("{}"))
            .setAppendInput("first")
            .build();

    assertThat(original.toBuilder().build()).isEqualTo(original);
    assertThat(ForkPatch.newBuilder(original).build()).isEqualTo(original);
    ForkPatch changed = original.toBuilder().setAppendInput("second").build();
    assertThat(changed)
        .isEqualTo(new ForkPatch(null, original.businessState(), original.toolResults(), "second"));
    assertThat(original.appendInput()).isEqualTo("first");
  }

  @Test
  void setToolResults_replacesThoseAdded_andNullsAreDroppedAsByTheRecord() throws Exception {
    JsonNode result = JSON.readTree("{\"ok\":true}");
    List<ToolResultPatch> withNull =
        new ArrayList<>(Arrays.asList(new ToolResultPatch("call_1_0", result), null));

    ForkPatch built =
        ForkPatch.newBuilder().addToolResult("call_0_0", result).setToolResults(withNull).build();

    assertThat(built.toolResults()).containsExactly(new ToolResultPatch("call_1_0", result));
    assertThat(ForkPatch.newBuilder().addToolResult("x", result).setToolResults(null).build())
        .isEqualTo(ForkPatch.NONE);
  }

  @Test
  void aBuilderUsedAgain_leavesThePatchesItBuiltAlone() throws Exception {
    ForkPatch.Builder builder =
        ForkPatch.newBuilder().addToolResult("call_0_0", JSON.readTree("1"));
    ForkPatch first = builder.build();

    ForkPatch second = builder.addToolResult("call_0_1", JSON.readTree("2")).build();

    assertThat(first.toolResults())
        .extracting(ToolResultPatch::toolCallId)
        .containsExactly("call_0_0");
    assertThat(second.toolResults())
        .extracting(ToolResultPatch::toolCallId)
        .containsExactly("call_0_0", "call_0_1");
  }
}
