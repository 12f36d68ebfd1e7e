package io.durableagents.projection;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The read model is for readers that run no workflow (the client, the console, reporting jobs): its
 * module pulls in neither the Temporal SDK nor the workflow module, only the shared values.
 */
class ProjectionDependenciesTest {

  @Test
  void theTemporalSdkIsNotOnTheClassPath() {
    assertThatThrownBy(() -> Class.forName("io.temporal.client.WorkflowClient"))
        .isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void theWorkflowModuleIsNotOnTheClassPath() {
    assertThatThrownBy(
            () -> Class.forName("io.durableagents.workflow.internal.AgentSessionWorkflowImpl"))
        .isInstanceOf(ClassNotFoundException.class);
  }
}
