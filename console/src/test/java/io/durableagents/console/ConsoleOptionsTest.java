package io.durableagents.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConsoleOptionsTest {
  @Test
  void toBuilder_copiesEverySetting_andLeavesTheOriginalAlone() {
    ConsoleOptions original =
        ConsoleOptions.newBuilder()
            .setBind("0.0.0.0")
            .setPort(9090)
            .setAuthentication(ConsoleAuth.local())
            .setTemporalUiUrl("http://127.0.0.1:8233/")
            .setNamespace("prod")
            .addWorkerEvents(URI.create("http://worker:8233"))
            .setLoginTimeout(Duration.ofHours(1))
            .build();

    ConsoleOptions copy =
        original.toBuilder().setPort(0).addWorkerEvents(URI.create("http://other:8233")).build();

    assertThat(copy.getBind()).isEqualTo("0.0.0.0");
    assertThat(copy.getPort()).isZero();
    assertThat(copy.getAuthentication()).isSameAs(original.getAuthentication());
    assertThat(copy.getTemporalUiUrl()).isEqualTo("http://127.0.0.1:8233");
    assertThat(copy.getNamespace()).isEqualTo("prod");
    assertThat(copy.getWorkerEvents())
        .containsExactly(URI.create("http://worker:8233/"), URI.create("http://other:8233/"));
    assertThat(copy.getLoginTimeout()).isEqualTo(Duration.ofHours(1));
    assertThat(original.getPort()).isEqualTo(9090);
    assertThat(original.getWorkerEvents()).containsExactly(URI.create("http://worker:8233/"));
  }
}
