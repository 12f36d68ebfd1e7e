package io.durableagents.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.client.AgentClientOptions;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.store.StoreOptions;
import org.junit.jupiter.api.Test;

/** The properties' defaults are literals (for the configuration metadata): the libraries' own. */
class DurableAgentsPropertiesTest {
  @Test
  void defaultsAreTheLibrariesDefaults() {
    DurableAgentsProperties properties = new DurableAgentsProperties();
    assertThat(properties.getTaskQueue()).isEqualTo(AgentClientOptions.DEFAULT_TASK_QUEUE);
    assertThat(properties.getClient().getRecoveryTimeout())
        .isEqualTo(AgentClientOptions.DEFAULT_RECOVERY_TIMEOUT);
    DurableAgentsProperties.Worker worker = properties.getWorker();
    assertThat(worker.getToolHookTimeout())
        .isEqualTo(AgentsPluginOptions.DEFAULT_TOOL_HOOK_TIMEOUT);
    assertThat(worker.getMaxPayloadBytes())
        .isEqualTo(AgentsPluginOptions.DEFAULT_MAX_PAYLOAD_BYTES);
    assertThat(worker.getTranscriptCacheChars())
        .isEqualTo(AgentsPluginOptions.DEFAULT_TRANSCRIPT_CACHE_CHARS);
    assertThat(worker.getCancelCheckInterval())
        .isEqualTo(AgentsPluginOptions.DEFAULT_CANCEL_CHECK_INTERVAL);
    assertThat(worker.getDeadlockDetectionTimeout())
        .isEqualTo(AgentsPluginOptions.DEFAULT_DEADLOCK_DETECTION_TIMEOUT);
    assertThat(properties.getStore().getHistoryLimit())
        .isEqualTo(StoreOptions.DEFAULT_HISTORY_LIMIT);
    DurableAgentsProperties.Console console = properties.getConsole();
    assertThat(console.getBind()).isEqualTo(ConsoleOptions.DEFAULT_BIND);
    assertThat(console.getPort()).isEqualTo(ConsoleOptions.DEFAULT_PORT);
    assertThat(console.getLoginTimeout()).isEqualTo(ConsoleOptions.DEFAULT_LOGIN_TIMEOUT);
  }
}
