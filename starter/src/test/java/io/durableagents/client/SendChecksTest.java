package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.TriggerEnvelope;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code AgentClient.send} refuses what the session would refuse before it sends anything: the
 * client here points at a closed port, so any request that went out would fail as unreachable
 * instead of with the refusal asserted.
 */
class SendChecksTest {
  private WorkflowServiceStubs service;
  private AgentClient agents;

  @BeforeEach
  void clientOfANowhereServer() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:" + closedPort).build());
    agents = AgentClient.newInstance(WorkflowClient.newInstance(service));
  }

  @AfterEach
  void close() {
    agents.close();
    service.shutdownNow();
  }

  @Test
  void aClosedClient_refusesAsyncCalls_andStillChecksInputFirst() {
    agents.close();

    assertThatThrownBy(() -> agents.sendAsync("closed-1", "hi"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> agents.approveAsync("closed-1", "approval-1"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> agents.awaitRunAsync("closed-1"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> agents.sendAsync("closed-2", "a".repeat(Limits.INPUT_CHARS + 1)))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void tooManyCharacters_isRefusedBeforeSending() {
    long start = System.nanoTime();

    assertThatThrownBy(() -> agents.send("big-1", "a".repeat(Limits.INPUT_CHARS + 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "The input is "
                + (Limits.INPUT_CHARS + 1)
                + " characters, over the limit of "
                + Limits.INPUT_CHARS
                + " per send; attach large content as an artifact instead.");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void tenMegabytes_isRefusedAtOnce() {
    long start = System.nanoTime();

    assertThatThrownBy(() -> agents.send("big-2", "x".repeat(10 * 1024 * 1024)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("over the limit of " + Limits.INPUT_CHARS);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void escapedControlCharacters_withinTheCharacterLimit_areRefusedByTheirSerializedSize() {
    String controls = "\u0001".repeat(Limits.INPUT_CHARS); // six bytes each in JSON

    assertThatThrownBy(() -> agents.send("big-3", controls))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("The request is ")
        .hasMessageContaining("bytes serialized, over the limit of " + Limits.REQUEST_BYTES);
  }

  @Test
  void anUnpairedSurrogate_isRefused() {
    assertThatThrownBy(() -> agents.send("text-1", "ok \uD800 then"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The input is not valid Unicode text: an unpaired surrogate at character 3.");
    assertThatThrownBy(() -> agents.send("text-1", "\uDC00"))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void agentNames_overTheLimit_blank_orWithControlCharacters_areRefused() {
    for (String agent :
        new String[] {
          "a".repeat(Limits.AGENT_NAME_CHARS + 1),
          "a".repeat(2 * 1024 * 1024),
          " ",
          "con\u001bcierge"
        }) {
      assertThatThrownBy(
              () ->
                  agents.send("agent-1", "hello", SendOptions.newBuilder().setAgent(agent).build()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith(
              "Invalid agent name: use 1-" + Limits.AGENT_NAME_CHARS + " characters");
    }
    assertThatCode(
            () ->
                AgentClient.requireSendable(
                    "agent-2",
                    "hi",
                    SendOptions.newBuilder().setAgent("a".repeat(Limits.AGENT_NAME_CHARS)).build()))
        .doesNotThrowAnyException();
  }

  @Test
  void aHugeTrigger_isRefused() {
    TriggerEnvelope trigger =
        TriggerEnvelope.newBuilder()
            .setId("t-1")
            .setSource("webhook")
            .setTrigger("order.created")
            .setPayload(JsonNodeFactory.instance.textNode("p".repeat(Limits.INPUT_CHARS)))
            .setReceivedAt(0L)
            .setAttachments(List.of())
            .build();

    // The session's own trigger rule, which its send validator applies too.
    assertThatThrownBy(() -> agents.sendTrigger("trigger-1", trigger))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("The trigger envelope is ")
        .hasMessageContaining("over the limit of " + Limits.TRIGGER_BYTES);
  }

  @Test
  void aModelTurnBudgetOutOfRange_isRefusedBeforeSending() {
    for (int maxSteps : new int[] {0, -3, Limits.MAX_STEPS + 1}) {
      assertThatThrownBy(
              () ->
                  agents.send(
                      "steps-1", "hello", SendOptions.newBuilder().setMaxSteps(maxSteps).build()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("maxSteps must be 1 to " + Limits.MAX_STEPS + ", got " + maxSteps + ".");
    }
    assertThatCode(
            () ->
                AgentClient.requireSendable(
                    "steps-2",
                    "hi",
                    SendOptions.newBuilder().setMaxSteps(Limits.MAX_STEPS).build()))
        .doesNotThrowAnyException();
  }

  @Test
  void sessionIds_overTheLimit_orWithOddCharacters_areRefused() {
    assertThatThrownBy(() -> agents.send("s".repeat(Limits.SESSION_ID_CHARS + 1), "hi"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("use 1-" + Limits.SESSION_ID_CHARS + " characters");
    assertThatThrownBy(() -> agents.send("a\u001b[31m", "hi"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a\\u001b[31m'");
    assertThatThrownBy(() -> agents.send("../etc", "hi"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void concurrencyKeys_overTheLimit_blank_orWithControlCharacters_areRefusedBeforeSending() {
    for (String key :
        new String[] {
          "k".repeat(Limits.CONCURRENCY_KEY_CHARS + 1), " ", "customer\n42", "a\u0000b"
        }) {
      SendOptions options = SendOptions.newBuilder().setConcurrencyKey(key).build();
      assertThatThrownBy(() -> agents.send("key-1", "hello", options))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith(
              "Invalid concurrency key: use 1-" + Limits.CONCURRENCY_KEY_CHARS + " characters");
      assertThatThrownBy(() -> agents.sendAsync("key-1", "hello", options))
          .isInstanceOf(InvalidInputException.class);
    }
    assertThatCode(
            () ->
                AgentClient.requireSendable(
                    "key-2",
                    "hi",
                    SendOptions.newBuilder()
                        .setConcurrencyKey("k".repeat(Limits.CONCURRENCY_KEY_CHARS))
                        .build()))
        .doesNotThrowAnyException();
  }

  @Test
  void emptyInput_isNoSend_awaitRunSaysWaitByName() {
    assertThatThrownBy(() -> agents.send("empty-1", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "send needs input; awaitRun(\"empty-1\") waits for the run without sending any.");
    assertThatThrownBy(() -> agents.sendAsync("empty-1", ""))
        .isInstanceOf(IllegalArgumentException.class);
    // One overload per input type: a null input compiles, and is refused as such.
    assertThatThrownBy(() -> agents.send("empty-1", null, SendOptions.getDefaultInstance()))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("input");
  }

  @Test
  void theAsyncSends_refuseInputBeforeSending_inTheCallersThread() {
    long start = System.nanoTime();

    assertThatThrownBy(() -> agents.sendAsync("big-4", "a".repeat(Limits.INPUT_CHARS + 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("over the limit of " + Limits.INPUT_CHARS);
    assertThatThrownBy(
            () -> agents.sendAsync("agent-3", "hi", SendOptions.newBuilder().setAgent(" ").build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Invalid agent name");
    assertThatThrownBy(() -> agents.awaitRunAsync("../etc"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void decisionsOverTheirLimits_areRefusedBeforeSending_byEveryVariant() {
    String hugeNote = "n".repeat(Limits.NOTE_CHARS + 1);
    DecisionOptions longName =
        DecisionOptions.newBuilder().setDecidedBy("b".repeat(Limits.DECIDED_BY_CHARS + 1)).build();
    String longId = "a".repeat(Limits.APPROVAL_ID_CHARS + 1);
    long start = System.nanoTime();

    assertThatThrownBy(() -> agents.reject("d-1", "a-1", hugeNote))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "The note is "
                + hugeNote.length()
                + " characters, over the limit of "
                + Limits.NOTE_CHARS
                + ".");
    assertThatThrownBy(() -> agents.rejectAsync("d-1", "a-1", hugeNote))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> agents.approve("d-1", "a-1", longName))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("decidedBy is " + (Limits.DECIDED_BY_CHARS + 1) + " characters");
    assertThatThrownBy(() -> agents.approveAsync("d-1", "a-1", longName))
        .isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> agents.approve("d-1", longId))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("The approval id is " + longId.length() + " characters");
    assertThatThrownBy(() -> agents.approve("d-1", null)).isInstanceOf(NullPointerException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void theLimitsAreInclusive() {
    SendOptions defaults = SendOptions.getDefaultInstance();
    assertThatCode(
            () -> AgentClient.requireSendable("edge-1", "a".repeat(Limits.INPUT_CHARS), defaults))
        .doesNotThrowAnyException();
    assertThatCode(
            () -> AgentClient.requireSendable("s".repeat(Limits.SESSION_ID_CHARS), "hi", defaults))
        .doesNotThrowAnyException();
    assertThatCode(() -> AgentClient.requireSendable("edge-2", "", defaults))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                AgentClient.requireSendable("edge-3", "a".repeat(Limits.INPUT_CHARS + 1), defaults))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void anIdempotencyKeyTheSessionWouldRefuse_isRefusedBeforeSending() {
    for (String key : List.of("", "a".repeat(Limits.IDEMPOTENCY_KEY_CHARS + 1), "line\nbreak")) {
      SendOptions options = SendOptions.newBuilder().setIdempotencyKey(key).build();
      assertThatThrownBy(() -> agents.send("key-1", "hi", options))
          .as("key %s", key.length() > 20 ? key.length() + " characters" : key)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Invalid idempotency key: use 1-200 characters");
    }
  }

  @Test
  void aNegativeResumeWindow_isRefusedByTheBuilder() {
    assertThatThrownBy(() -> SendOptions.newBuilder().setResumeWindow(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("resumeWindow must not be negative");
    SendOptions options =
        SendOptions.newBuilder()
            .setIdempotencyKey("order-7")
            .setResumeWindow(Duration.ZERO)
            .build();
    assertThat(options.toBuilder().build()).isEqualTo(options);
    assertThat(options.getResumeWindow()).isEqualTo(Duration.ZERO);
  }
}
