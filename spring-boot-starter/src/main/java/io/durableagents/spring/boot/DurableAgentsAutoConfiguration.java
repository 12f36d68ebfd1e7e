package io.durableagents.spring.boot;

import io.durableagents.agent.Agent;
import io.durableagents.agent.AgentFactory;
import io.durableagents.client.AgentClient;
import io.durableagents.client.AgentClientOptions;
import io.durableagents.client.ProjectionReader;
import io.durableagents.console.ConsoleOptions;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.model.ModelProvider;
import io.durableagents.plugin.AgentsPlugin;
import io.durableagents.plugin.AgentsPluginOptions;
import io.durableagents.spring.boot.internal.AgentCatalog;
import io.durableagents.spring.boot.internal.ConsoleDeltas;
import io.durableagents.spring.boot.internal.ConsoleSettings;
import io.durableagents.spring.boot.internal.InvalidProperty;
import io.durableagents.spring.boot.internal.MicrometerMetrics;
import io.durableagents.spring.boot.internal.SpringAiModels;
import io.durableagents.spring.boot.internal.StoreLocation;
import io.durableagents.spring.boot.internal.WorkerQueuesCheck;
import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.StoreOptions;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tracing.AgentTracer;
import io.temporal.client.WorkflowClient;
import io.temporal.spring.boot.TemporalOptionsCustomizer;
import io.temporal.spring.boot.autoconfigure.RootNamespaceAutoConfiguration;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerPlugin;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * Durable agents in a Spring Boot application on Temporal's starter ({@code
 * io.temporal:temporal-spring-boot-starter}):
 *
 * <ul>
 *   <li>an {@link AgentsPlugin} bean, which Temporal's starter applies to the workers it creates
 *       (the plugin registers the session workflow and activities on those of {@code
 *       durable-agents.worker.task-queues}, default {@code durable-agents.task-queue}), serving the
 *       {@link Agent} beans, the agents of {@code durable-agents.agents.*} (tools: {@link Tool}
 *       beans by name), the {@link AgentFactory} beans as dynamic agents (by bean name), the {@link
 *       ToolHook} and {@link DeltaListener} beans, the {@link ModelProvider} bean (else a Spring AI
 *       {@code ChatModel} bean, with {@code durable-agents-spring-ai}), and the {@link
 *       AgentMetrics} bean, or Micrometer meters on the {@code MeterRegistry} bean, and the {@link
 *       AgentTracer} bean (e.g. {@code OpenTelemetryAgentTracer.of(openTelemetry)});
 *   <li>an {@link AgentStore} on {@code durable-agents.store.url}, else on the application's {@link
 *       DataSource} (the store's Flyway migrations run on it), else on {@value
 *       StoreLocation#DEFAULT_URL};
 *   <li>{@link AgentClient} and {@link ProjectionReader} beans;
 *   <li>the console ({@link AgentConsoleServer}) when {@code durable-agents.console.enabled}.
 * </ul>
 *
 * Every bean yields to one the application declares of its type.
 */
@AutoConfiguration(
    after = RootNamespaceAutoConfiguration.class,
    afterName = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration")
@EnableConfigurationProperties(DurableAgentsProperties.class)
public class DurableAgentsAutoConfiguration {
  private static final String WORKER_ENABLED = DurableAgentsProperties.PREFIX + ".worker.enabled";

  /** Made by Spring. */
  public DurableAgentsAutoConfiguration() {}

  /**
   * The store: {@code durable-agents.store.url}, else the application's DataSource (migrated with
   * the store's own Flyway history table), else the default SQLite file. It is made after the
   * application's own database initialization (its Flyway or Liquibase migrations, its SQL
   * scripts).
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(name = WORKER_ENABLED, matchIfMissing = true)
  @DependsOnDatabaseInitialization
  public AgentStore agentStore(
      DurableAgentsProperties properties, ObjectProvider<DataSource> dataSources) {
    DurableAgentsProperties.Store store = properties.getStore();
    StoreOptions options =
        InvalidProperty.check(
            DurableAgentsProperties.PREFIX + ".store.history-limit",
            store.getHistoryLimit(),
            () -> StoreOptions.newBuilder().setHistoryLimit(store.getHistoryLimit()).build());
    DataSource dataSource = StoreLocation.dataSource(properties, dataSources);
    if (dataSource != null) {
      return AgentStores.open(dataSource, options);
    }
    String url = StoreLocation.storeUrl(properties);
    return InvalidProperty.check(
        DurableAgentsProperties.PREFIX + ".store.url", url, () -> AgentStores.open(url, options));
  }

  /**
   * The plugin, which Temporal's starter applies to its workers (it takes every {@code
   * WorkerPlugin} bean).
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(name = WORKER_ENABLED, matchIfMissing = true)
  public AgentsPlugin agentsPlugin(
      DurableAgentsProperties properties,
      AgentStore store,
      ObjectProvider<Agent> agents,
      ObjectProvider<Tool> tools,
      ObjectProvider<ToolHook> toolHooks,
      ObjectProvider<DeltaListener> deltaListeners,
      ObjectProvider<AgentMetrics> metrics,
      ObjectProvider<AgentTracer> tracers,
      ListableBeanFactory beans) {
    AgentsPluginOptions.Builder builder = AgentsPluginOptions.newBuilder().setStore(store);
    List<Agent> all =
        AgentCatalog.agents(
            agents.orderedStream().toList(), tools.orderedStream().toList(), properties);
    all.forEach(builder::addAgent);
    Map<String, AgentFactory> dynamic = beans.getBeansOfType(AgentFactory.class);
    dynamic.forEach(builder::addDynamicAgent);
    if (all.isEmpty() && dynamic.isEmpty()) {
      throw InvalidProperty.of(
          DurableAgentsProperties.PREFIX + ".agents",
          "(none)",
          "the plugin has no agent: declare Agent beans or durable-agents.agents.<name>, or set "
              + WORKER_ENABLED
              + "=false in an application that only starts and reads sessions");
    }
    String defaultAgent = properties.getDefaultAgent();
    if (defaultAgent != null) {
      if (!AgentCatalog.names(all, dynamic.keySet()).contains(defaultAgent)) {
        throw InvalidProperty.of(
            DurableAgentsProperties.PREFIX + ".default-agent",
            defaultAgent,
            "no agent has this name; agents: " + AgentCatalog.names(all, dynamic.keySet()));
      }
      builder.setDefaultAgent(defaultAgent);
    }
    ModelProvider model = modelProvider(beans);
    if (model != null) {
      builder.setModelProvider(model);
    }
    toolHooks.orderedStream().forEach(builder::addToolHook);
    deltaListeners.orderedStream().forEach(builder::addDeltaListener);
    AgentMetrics chosenMetrics = agentMetrics(properties, metrics, beans);
    if (chosenMetrics != null) {
      builder.setMetrics(chosenMetrics);
    }
    AgentTracer tracer = tracers.getIfUnique();
    if (tracer != null) {
      builder.setTracer(tracer);
    }
    workerSettings(properties, builder);
    return new AgentsPlugin(
        InvalidProperty.check(
            DurableAgentsProperties.PREFIX + ".agents", "(agents)", builder::build));
  }

  private static ModelProvider modelProvider(ListableBeanFactory beans) {
    ObjectProvider<ModelProvider> providers = beans.getBeanProvider(ModelProvider.class);
    ModelProvider unique = providers.getIfUnique();
    if (unique == null && beans.getBeanNamesForType(ModelProvider.class).length > 1) {
      throw new IllegalStateException(
          "Several ModelProvider beans "
              + List.of(beans.getBeanNamesForType(ModelProvider.class))
              + ": mark the agents' default one @Primary");
    }
    if (unique == null
        && SpringAiModels.available(DurableAgentsAutoConfiguration.class.getClassLoader())) {
      return SpringAiModels.of(beans);
    }
    return unique;
  }

  private static AgentMetrics agentMetrics(
      DurableAgentsProperties properties, ObjectProvider<AgentMetrics> metrics, BeanFactory beans) {
    if (!properties.getMetrics().isEnabled()) {
      return null;
    }
    AgentMetrics declared = metrics.getIfUnique();
    if (declared != null) {
      return declared;
    }
    return MicrometerMetrics.available(DurableAgentsAutoConfiguration.class.getClassLoader())
        ? MicrometerMetrics.of(beans)
        : null;
  }

  private static void workerSettings(
      DurableAgentsProperties properties, AgentsPluginOptions.Builder builder) {
    DurableAgentsProperties.Worker worker = properties.getWorker();
    String prefix = DurableAgentsProperties.PREFIX + ".worker.";
    builder.setTaskQueues(taskQueues(properties).toArray(String[]::new));
    InvalidProperty.check(
        prefix + "tool-hook-timeout",
        worker.getToolHookTimeout(),
        () -> builder.setToolHookTimeout(worker.getToolHookTimeout()));
    InvalidProperty.check(
        prefix + "max-payload-bytes",
        worker.getMaxPayloadBytes(),
        () -> builder.setMaxPayloadBytes(worker.getMaxPayloadBytes()));
    InvalidProperty.check(
        prefix + "transcript-cache-chars",
        worker.getTranscriptCacheChars(),
        () -> builder.setTranscriptCacheChars(worker.getTranscriptCacheChars()));
    InvalidProperty.check(
        prefix + "cancel-check-interval",
        worker.getCancelCheckInterval(),
        () -> builder.setCancelCheckInterval(worker.getCancelCheckInterval()));
    InvalidProperty.check(
        prefix + "deadlock-detection-timeout",
        worker.getDeadlockDetectionTimeout(),
        () -> builder.setDeadlockDetectionTimeout(worker.getDeadlockDetectionTimeout()));
    builder.setSearchAttributeUpserts(worker.getSearchAttributeUpserts());
  }

  private static List<String> taskQueues(DurableAgentsProperties properties) {
    List<String> queues = properties.getWorker().getTaskQueues();
    return queues.isEmpty() ? List.of(properties.getTaskQueue()) : queues;
  }

  /**
   * On the embedded test server ({@code spring.temporal.test-server.enabled}) Temporal's starter
   * ignores plugin beans that are also service-stubs plugins, as every {@code SimplePlugin} is: the
   * plugin joins the test server's worker factory through its options instead.
   */
  @Bean
  @ConditionalOnProperty(name = WORKER_ENABLED, matchIfMissing = true)
  @ConditionalOnProperty(name = "spring.temporal.test-server.enabled")
  public TemporalOptionsCustomizer<WorkerFactoryOptions.Builder> durableAgentsTestServerPlugin(
      ObjectProvider<AgentsPlugin> plugin) {
    return builder -> {
      AgentsPlugin agents = plugin.getObject();
      WorkerPlugin[] current = builder.build().getPlugins();
      List<WorkerPlugin> plugins = new ArrayList<>(current == null ? List.of() : List.of(current));
      if (!plugins.contains(agents)) {
        plugins.add(agents);
      }
      return builder.setPlugins(plugins.toArray(WorkerPlugin[]::new));
    };
  }

  /** Fails the start when a task queue of the plugin has no worker of Temporal's starter. */
  @Bean
  @ConditionalOnProperty(name = WORKER_ENABLED, matchIfMissing = true)
  public WorkerQueuesCheck durableAgentsWorkerQueuesCheck(
      ObjectProvider<WorkerFactory> factories, DurableAgentsProperties properties) {
    String property =
        properties.getWorker().getTaskQueues().isEmpty()
            ? DurableAgentsProperties.PREFIX + ".task-queue"
            : DurableAgentsProperties.PREFIX + ".worker.task-queues";
    return new WorkerQueuesCheck(factories, taskQueues(properties), property);
  }

  /**
   * The reader of the projection: {@code durable-agents.projection.url}, else the store's URL, else
   * the DataSource's.
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ProjectionReader projectionReader(
      DurableAgentsProperties properties,
      ObjectProvider<DataSource> dataSources,
      Environment environment) {
    String url =
        StoreLocation.projectionUrl(
            properties, StoreLocation.dataSource(properties, dataSources), environment);
    return InvalidProperty.check(
        DurableAgentsProperties.PREFIX + ".projection.url", url, () -> ProjectionReader.open(url));
  }

  /** The client of the sessions, on Temporal's starter's {@link WorkflowClient}. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public AgentClient agentClient(
      WorkflowClient workflowClient,
      DurableAgentsProperties properties,
      ProjectionReader projection) {
    AgentClientOptions.Builder options = AgentClientOptions.newBuilder().setProjection(projection);
    InvalidProperty.check(
        DurableAgentsProperties.PREFIX + ".task-queue",
        properties.getTaskQueue(),
        () -> options.setTaskQueue(properties.getTaskQueue()));
    InvalidProperty.check(
        DurableAgentsProperties.PREFIX + ".client.recovery-timeout",
        properties.getClient().getRecoveryTimeout(),
        () -> options.setRecoveryTimeout(properties.getClient().getRecoveryTimeout()));
    return AgentClient.newInstance(workflowClient, options.build());
  }

  /** The console, when {@code durable-agents.console.enabled} is true. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(name = DurableAgentsProperties.PREFIX + ".console.enabled")
  public static class ConsoleConfiguration {
    /** Made by Spring. */
    public ConsoleConfiguration() {}

    /** Streams the model turns' deltas to the console's session pages. */
    @Bean
    public ConsoleDeltas durableAgentsConsoleDeltas() {
      return new ConsoleDeltas();
    }

    /** The console, started and stopped with the application's context. */
    @Bean
    @ConditionalOnMissingBean
    public AgentConsoleServer agentConsoleServer(
        AgentClient client,
        ProjectionReader projection,
        WorkflowClient workflowClient,
        DurableAgentsProperties properties,
        ConsoleDeltas deltas) {
      ConsoleOptions options =
          ConsoleSettings.options(
              properties.getConsole(), workflowClient.getOptions().getNamespace());
      return new AgentConsoleServer(client, projection, options, deltas);
    }
  }
}
