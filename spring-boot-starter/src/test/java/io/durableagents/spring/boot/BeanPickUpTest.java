package io.durableagents.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.durableagents.agent.Agent;
import io.durableagents.client.AgentClient;
import io.durableagents.client.ProjectionReader;
import io.durableagents.client.SessionFilter;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.micrometer.MicrometerAgentMetrics;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.springai.SpringAiModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.testing.ConciergeAgent;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tracing.AgentTracer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;

/** Which beans the starter picks up, and how an application's own beans take their place. */
class BeanPickUpTest {
  private static final ToolHook AUDIT = new ToolHook() {};
  private static final AgentTracer TRACER = new AgentTracer() {};

  @Test
  void agentsToolsHooksModelAndMeterRegistry_makeThePlugin_onTheStartersWorker() {
    ModelProvider model = ConciergeAgent.defaultScript();
    StarterContexts.withSqliteStore()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean("weather", Tool.class, () -> ConciergeAgent.tools().get(0))
        .withBean("restaurants", Tool.class, () -> ConciergeAgent.tools().get(1))
        .withBean("audit", ToolHook.class, () -> AUDIT)
        .withBean("model", ModelProvider.class, () -> model)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(AgentTracer.class, () -> TRACER)
        .withPropertyValues(
            "durable-agents.agents.planner.instructions=Plan the evening.",
            "durable-agents.agents.planner.tools=get_weather,find_restaurant",
            "durable-agents.agents.planner.max-steps=3",
            "durable-agents.default-agent=planner")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AgentsPluginOptions options = context.getBean(AgentsPlugin.class).options();
              assertThat(options.getAgents())
                  .extracting(Agent::name)
                  .containsExactly("concierge", "planner");
              Agent planner = options.getAgents().get(1);
              assertThat(planner.tools())
                  .extracting(Tool::name)
                  .containsExactly("get_weather", "find_restaurant");
              assertThat(planner.maxSteps()).isEqualTo(3);
              assertThat(planner.instructions()).isEqualTo("Plan the evening.");
              assertThat(options.getDefaultAgent()).isEqualTo("planner");
              assertThat(options.getToolHooks()).containsExactly(AUDIT);
              assertThat(options.getModelProvider()).isSameAs(model);
              assertThat(options.getMetrics()).isInstanceOf(MicrometerAgentMetrics.class);
              assertThat(options.getTracer()).isSameAs(TRACER);
              assertThat(options.getTaskQueues()).containsExactly("agents");
              assertThat(context).hasSingleBean(AgentClient.class);
              assertThat(context).hasSingleBean(ProjectionReader.class);
              assertThat(context).doesNotHaveBean(AgentConsoleServer.class);
            });
  }

  @Test
  void withoutAStoreUrl_theStoreIsOnTheDataSource_migrated_andTheReaderReadsIt() {
    String url = StarterContexts.sqliteUrl("app.db");
    StarterContexts.runner()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean("model", ModelProvider.class, ConciergeAgent::defaultScript)
        .withBean(
            DataSource.class,
            () -> {
              HikariDataSource dataSource = new HikariDataSource();
              dataSource.setJdbcUrl(url);
              return dataSource;
            })
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              try (Connection connection = context.getBean(DataSource.class).getConnection();
                  ResultSet tables =
                      connection
                          .getMetaData()
                          .getTables(null, null, "agent_store_schema_history", null)) {
                assertThat(tables.next()).as("the store's Flyway history table").isTrue();
              }
              assertThat(context.getBean(ProjectionReader.class).toString()).contains("app.db");
              assertThat(
                      context
                          .getBean(ProjectionReader.class)
                          .sessions(SessionFilter.ALL, null, 10)
                          .sessions())
                  .isEmpty();
            });
  }

  @Test
  void aSpringAiChatModel_isTheModelProvider_unlessTheApplicationDeclaresOne() {
    ChatModel chatModel = (Prompt prompt) -> new ChatResponse(List.of());
    StarterContexts.withSqliteStore()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean(ChatModel.class, () -> chatModel)
        .run(
            context ->
                assertThat(context.getBean(AgentsPlugin.class).options().getModelProvider())
                    .isInstanceOf(SpringAiModelProvider.class));
    ModelProvider declared = ConciergeAgent.defaultScript();
    StarterContexts.withSqliteStore()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean(ChatModel.class, () -> chatModel)
        .withBean("model", ModelProvider.class, () -> declared)
        .run(
            context ->
                assertThat(context.getBean(AgentsPlugin.class).options().getModelProvider())
                    .isSameAs(declared));
  }

  @Test
  void theApplicationsOwnBeans_takeThePlaceOfTheStarters() {
    AgentMetrics metrics = new AgentMetrics() {};
    StarterContexts.withSqliteStore()
        .withBean("concierge", Agent.class, ConciergeAgent::create)
        .withBean("model", ModelProvider.class, ConciergeAgent::defaultScript)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(AgentMetrics.class, () -> metrics)
        .withPropertyValues("durable-agents.console.enabled=true", "durable-agents.console.port=0")
        .run(
            context -> {
              AgentClient client = context.getBean(AgentClient.class);
              assertThat(context.getBean(AgentsPlugin.class).options().getMetrics())
                  .isSameAs(metrics);
              assertThat(context.getBean(AgentConsoleServer.class).port()).isPositive();
              StarterContexts.withSqliteStore()
                  .withBean("concierge", Agent.class, ConciergeAgent::create)
                  .withBean("model", ModelProvider.class, ConciergeAgent::defaultScript)
                  .withBean("myClient", AgentClient.class, () -> client)
                  .run(own -> assertThat(own.getBean(AgentClient.class)).isSameAs(client));
            });
  }

  @Test
  void anApplicationThatOnlyStartsSessions_hasAClientAndNoPlugin() {
    StarterContexts.runner()
        .withPropertyValues(
            "durable-agents.worker.enabled=false",
            "durable-agents.projection.url=" + StarterContexts.sqliteUrl("p.db"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean(AgentsPlugin.class);
              assertThat(context).hasSingleBean(AgentClient.class);
            });
  }
}
