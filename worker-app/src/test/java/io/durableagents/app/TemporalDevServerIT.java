package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.app.testing.RealTemporal;
import io.durableagents.workflow.SessionSearchAttributes;
import io.temporal.api.enums.v1.IndexedValueType;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TemporalDevServerIT {
  @TempDir Path dir;

  @Test
  void startsOnLoopback_withTheSessionAttributes_andStopsByPid() {
    TemporalDevServer server = RealTemporal.start(dir);
    long pid = server.pid();
    try {
      assertThat(server.address()).startsWith("127.0.0.1:");
      WorkflowServiceStubs service = AgentWorker.connect(server.address());
      OperatorServiceStubs operator =
          OperatorServiceStubs.newServiceStubs(
              OperatorServiceStubsOptions.newBuilder()
                  .setTarget(server.address())
                  .validateAndBuildWithDefaults());
      Map<String, IndexedValueType> custom =
          operator
              .blockingStub()
              .listSearchAttributes(
                  ListSearchAttributesRequest.newBuilder().setNamespace("default").build())
              .getCustomAttributesMap();
      assertThat(custom)
          .containsEntry(
              SessionSearchAttributes.AGENT_NAME.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
          .containsEntry(
              SessionSearchAttributes.AGENT_STATUS.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD)
          .containsEntry(
              SessionSearchAttributes.PENDING_APPROVALS.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_INT)
          .containsEntry(
              SessionSearchAttributes.PARENT_SESSION.getName(),
              IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
      operator.shutdownNow();
      service.shutdownNow();
      assertThat(dir.resolve("temporal.db")).exists();
    } finally {
      server.close();
    }
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThatThrownBy(() -> AgentWorker.connect(server.address()))
        .hasMessageContaining("Cannot reach Temporal at " + server.address());
  }

  @Test
  void aServerThatExitsAtOnce_failsWithItsLog() throws Exception {
    Path fake = dir.resolve("temporal");
    Files.writeString(fake, "#!/bin/sh\necho 'cannot bind: nope'\nexit 3\n");
    fake.toFile().setExecutable(true);
    assertThatThrownBy(
            () -> TemporalDevServer.start(TemporalDevServer.Options.newBuilder(fake).build()))
        .hasMessageContaining("exited with 3")
        .hasMessageContaining("cannot bind: nope");
  }

  @Test
  void theTransferQueueIsPolledAtOnce_unlessTheServersDefaultsAreAsked() throws Exception {
    // A fake CLI that writes its arguments down and exits: enough to see what a start asks for.
    Path args = dir.resolve("args");
    Path fake = dir.resolve("recording-temporal");
    Files.writeString(fake, "#!/bin/sh\necho \"$@\" >> '" + args + "'\nexit 3\n");
    fake.toFile().setExecutable(true);
    for (TemporalDevServer.Options.Builder options :
        List.of(
            TemporalDevServer.Options.newBuilder(fake),
            TemporalDevServer.Options.newBuilder(fake).serverDispatchDefaults(),
            TemporalDevServer.Options.newBuilder(fake)
                .dynamicConfig("history.transferProcessorMaxPollRPS=50"))) {
      assertThatThrownBy(() -> TemporalDevServer.start(options.build()))
          .hasMessageContaining("exited with 3");
    }
    List<String> starts = Files.readAllLines(args);
    assertThat(starts).hasSize(3);
    assertThat(starts.get(0))
        .contains("--dynamic-config-value history.transferProcessorMaxPollRPS=1000");
    assertThat(starts.get(1)).doesNotContain("transferProcessorMaxPollRPS");
    assertThat(starts.get(2))
        .contains("--dynamic-config-value history.transferProcessorMaxPollRPS=50")
        .doesNotContain("transferProcessorMaxPollRPS=1000");
  }

  @Test
  void aPortTakenAsTheServerStarts_isRetriedOnNewPorts() throws Exception {
    // The first start loses a port race, as the CLI reports it; the next one is the real server.
    Path runs = dir.resolve("runs");
    Path racy = dir.resolve("racy-temporal");
    Files.writeString(
        racy,
        "#!/bin/sh\n"
            + "echo run >> '"
            + runs
            + "'\n"
            + "if [ $(wc -l < '"
            + runs
            + "') -eq 1 ]; then\n"
            + "  echo 'Error: listen tcp 127.0.0.1:40001: bind: address already in use'; exit 1\n"
            + "fi\n"
            + "exec '"
            + RealTemporal.cli()
            + "' \"$@\"\n");
    racy.toFile().setExecutable(true);
    try (TemporalDevServer server =
        TemporalDevServer.start(TemporalDevServer.Options.newBuilder(racy).build())) {
      AgentWorker.connect(server.address()).shutdownNow();
      assertThat(Files.readAllLines(runs)).hasSize(2);
    }
  }

  @Test
  void aPortThatStaysTaken_failsWithTheServersOwnError() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      TemporalDevServer.Options options =
          TemporalDevServer.Options.newBuilder(RealTemporal.cli())
              .uiPort(taken.getLocalPort())
              .logFile(dir.resolve("server.log"))
              .build();
      assertThatThrownBy(() -> TemporalDevServer.start(options))
          .hasMessageContaining("exited with 1")
          .hasMessageContaining(
              "(Error: can't set UI port " + taken.getLocalPort() + ": listen tcp")
          .hasMessageContaining("address already in use");
      // Three starts, each one told the port is taken.
      assertThat(Files.readString(dir.resolve("server.log")).split("can't set UI port", -1))
          .hasSize(4);
    }
  }
}
