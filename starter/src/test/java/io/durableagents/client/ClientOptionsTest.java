package io.durableagents.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's options follow Temporal's options idiom: defaults for what is not set, copies that
 * round-trip through {@code toBuilder}, value equality.
 */
class ClientOptionsTest {
  @TempDir Path dir;

  @Test
  void agentClientOptions_defaults() {
    AgentClientOptions defaults = AgentClientOptions.getDefaultInstance();

    assertThat(defaults.getTaskQueue())
        .isEqualTo(AgentClientOptions.DEFAULT_TASK_QUEUE)
        .isEqualTo("agents");
    assertThat(defaults.getProjection()).isNull();
    assertThat(defaults.getProjectionFailureListener()).isNotNull();
    assertThat(defaults.getRecoveryTimeout())
        .isEqualTo(AgentClientOptions.DEFAULT_RECOVERY_TIMEOUT)
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(AgentClientOptions.newBuilder().build())
        .isEqualTo(defaults)
        .hasSameHashCodeAs(defaults);
    assertThat(defaults.toString())
        .contains("taskQueue='agents'", "projection=null", "log a warning", "recoveryTimeout=PT2M");
  }

  @Test
  void agentClientOptions_toBuilder_roundTripsEveryOption_andChangesOnlyWhatIsSet() {
    ProjectionReader projection =
        ProjectionReader.open("jdbc:sqlite:" + dir.resolve("projection.db"));
    List<AgentClientException> heard = new ArrayList<>();
    Consumer<AgentClientException> listener = heard::add;
    AgentClientOptions options =
        AgentClientOptions.newBuilder()
            .setTaskQueue("agents-eu")
            .setProjection(projection)
            .setProjectionFailureListener(listener)
            .setRecoveryTimeout(Duration.ofSeconds(30))
            .build();

    assertThat(options.getTaskQueue()).isEqualTo("agents-eu");
    assertThat(options.getRecoveryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.getProjection()).isSameAs(projection);
    assertThat(options.getProjectionFailureListener()).isSameAs(listener);
    assertThat(options.toBuilder().build()).isEqualTo(options).hasSameHashCodeAs(options);
    assertThat(AgentClientOptions.newBuilder(options).build()).isEqualTo(options);

    AgentClientOptions moved = options.toBuilder().setTaskQueue("agents-us").build();
    assertThat(moved.getTaskQueue()).isEqualTo("agents-us");
    assertThat(moved.getProjection()).isSameAs(projection);
    assertThat(moved.getProjectionFailureListener()).isSameAs(listener);
    assertThat(moved.getRecoveryTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(moved).isNotEqualTo(options);
    assertThat(options.toBuilder().setRecoveryTimeout(Duration.ZERO).build())
        .isNotEqualTo(options)
        .extracting(AgentClientOptions::getRecoveryTimeout)
        .isEqualTo(Duration.ZERO);
    assertThat(options.getTaskQueue()).isEqualTo("agents-eu");
  }

  @Test
  void agentClientOptions_null_meansTheDefault_andABlankQueueOrANegativeTimeoutIsRefused() {
    AgentClientOptions options =
        AgentClientOptions.newBuilder()
            .setTaskQueue("agents-eu")
            .setProjection(ProjectionReader.open("jdbc:sqlite:" + dir.resolve("projection.db")))
            .setProjectionFailureListener(e -> {})
            .setRecoveryTimeout(Duration.ofSeconds(5))
            .build();

    AgentClientOptions reset =
        options.toBuilder()
            .setTaskQueue(null)
            .setProjection(null)
            .setProjectionFailureListener(null)
            .setRecoveryTimeout(null)
            .build();

    assertThat(reset).isEqualTo(AgentClientOptions.getDefaultInstance());
    assertThatThrownBy(() -> AgentClientOptions.newBuilder().setTaskQueue(" ").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("taskQueue must not be blank");
    assertThatThrownBy(
            () -> AgentClientOptions.newBuilder().setRecoveryTimeout(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("recoveryTimeout must not be negative, got PT-0.001S");
  }

  @Test
  void sendOptions_defaults_andToBuilderRoundTrip() {
    SendOptions defaults = SendOptions.getDefaultInstance();
    assertThat(defaults.getAgent()).isNull();
    assertThat(defaults.getMaxSteps()).isNull();
    assertThat(SendOptions.newBuilder().build()).isEqualTo(defaults).hasSameHashCodeAs(defaults);

    SendOptions options = SendOptions.newBuilder().setAgent("concierge").setMaxSteps(12).build();

    assertThat(options.getAgent()).isEqualTo("concierge");
    assertThat(options.getMaxSteps()).isEqualTo(12);
    assertThat(options.toBuilder().build()).isEqualTo(options).hasSameHashCodeAs(options);
    assertThat(SendOptions.newBuilder(options).build()).isEqualTo(options);
    assertThat(options.toBuilder().setMaxSteps(null).build())
        .isEqualTo(SendOptions.newBuilder().setAgent("concierge").build())
        .isNotEqualTo(options);
    assertThat(options)
        .hasToString(
            "SendOptions{agent='concierge', maxSteps=12, runConfig=null, idempotencyKey=null,"
                + " resumeWindow=null, concurrencyKey=null}");
    assertThat(defaults)
        .hasToString(
            "SendOptions{agent=null, maxSteps=null, runConfig=null, idempotencyKey=null,"
                + " resumeWindow=null, concurrencyKey=null}");
    SendOptions keyed = options.toBuilder().setConcurrencyKey("customer:42").build();
    assertThat(keyed.getConcurrencyKey()).isEqualTo("customer:42");
    assertThat(keyed.toBuilder().build()).isEqualTo(keyed).hasSameHashCodeAs(keyed);
    assertThat(keyed).isNotEqualTo(options);
    assertThat(defaults.getRunConfig()).isNull();

    com.fasterxml.jackson.databind.node.ObjectNode gold =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance
            .objectNode()
            .put("tier", "gold");
    SendOptions configured = options.toBuilder().setRunConfig(gold).build();
    gold.put("tier", "changed after build");
    assertThat(configured.getRunConfig().get("tier").asText()).isEqualTo("gold");
    assertThat(configured.toBuilder().build()).isEqualTo(configured).isNotEqualTo(options);
    assertThat(configured)
        .hasToString(
            "SendOptions{agent='concierge', maxSteps=12, runConfig={\"tier\":\"gold\"},"
                + " idempotencyKey=null, resumeWindow=null, concurrencyKey=null}");
    SendOptions resuming =
        configured.toBuilder()
            .setIdempotencyKey("order-7")
            .setResumeWindow(java.time.Duration.ofMinutes(2))
            .build();
    assertThat(resuming).isNotEqualTo(configured);
    assertThat(resuming.toBuilder().build()).isEqualTo(resuming);
    assertThat(resuming)
        .hasToString(
            "SendOptions{agent='concierge', maxSteps=12, runConfig={\"tier\":\"gold\"},"
                + " idempotencyKey='order-7', resumeWindow=PT2M, concurrencyKey=null}");
  }

  @Test
  void decisionOptions_defaults_andToBuilderRoundTrip() {
    DecisionOptions defaults = DecisionOptions.getDefaultInstance();
    assertThat(defaults.getNote()).isNull();
    assertThat(defaults.getDecidedBy()).isNull();
    assertThat(DecisionOptions.newBuilder().build())
        .isEqualTo(defaults)
        .hasSameHashCodeAs(defaults);

    DecisionOptions options =
        DecisionOptions.newBuilder().setNote("over budget").setDecidedBy("alice").build();

    assertThat(options.getNote()).isEqualTo("over budget");
    assertThat(options.getDecidedBy()).isEqualTo("alice");
    assertThat(options.toBuilder().build()).isEqualTo(options).hasSameHashCodeAs(options);
    assertThat(DecisionOptions.newBuilder(options).build()).isEqualTo(options);
    assertThat(options.toBuilder().setDecidedBy("bob").build())
        .isEqualTo(DecisionOptions.newBuilder().setNote("over budget").setDecidedBy("bob").build())
        .isNotEqualTo(options);
    assertThat(options).hasToString("DecisionOptions{note='over budget', decidedBy='alice'}");
  }
}
