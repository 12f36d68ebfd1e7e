package io.durableagents.spring.boot;

import io.durableagents.plugin.SearchAttributeUpserts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Every setting of the starter, under {@code durable-agents.*}; see {@code docs/spring-boot.md}.
 * Defaults are literals, so that the configuration metadata shows them; they equal the libraries'
 * own defaults. The binder refuses a value of the wrong type naming the property; the
 * auto-configuration refuses unknown agents and tools, and values the plugin refuses, the same way.
 */
@ConfigurationProperties(DurableAgentsProperties.PREFIX)
public class DurableAgentsProperties {
  /** The prefix of every property. */
  public static final String PREFIX = "durable-agents";

  /**
   * The task queue sessions run on: the AgentClient bean starts them there, and (unless
   * worker.task-queues says otherwise) the plugin registers on the worker of Temporal's starter
   * that polls it.
   */
  private String taskQueue = "agents";

  /** The agent of sessions that name none; default: the first agent (beans first). */
  private String defaultAgent;

  /** Agents declared here, by name, next to the Agent beans. */
  private Map<String, AgentSettings> agents = new LinkedHashMap<>();

  private final Worker worker = new Worker();
  private final Store store = new Store();
  private final Projection projection = new Projection();
  private final Client client = new Client();
  private final Console console = new Console();
  private final Metrics metrics = new Metrics();

  /** See {@link #setTaskQueue}. */
  public String getTaskQueue() {
    return taskQueue;
  }

  /** The task queue sessions run on (default {@code agents}). */
  public void setTaskQueue(String taskQueue) {
    this.taskQueue = taskQueue;
  }

  /** See {@link #setDefaultAgent}. */
  public String getDefaultAgent() {
    return defaultAgent;
  }

  /** The agent of sessions that name none; it must exist. */
  public void setDefaultAgent(String defaultAgent) {
    this.defaultAgent = defaultAgent;
  }

  /** The agents declared in properties, by name. */
  public Map<String, AgentSettings> getAgents() {
    return agents;
  }

  /** Replaces the agents declared in properties. */
  public void setAgents(Map<String, AgentSettings> agents) {
    this.agents = agents;
  }

  /** The plugin's settings on the workers. */
  public Worker getWorker() {
    return worker;
  }

  /** Where checkpoints are stored. */
  public Store getStore() {
    return store;
  }

  /** What the ProjectionReader bean reads. */
  public Projection getProjection() {
    return projection;
  }

  /** The AgentClient bean's settings. */
  public Client getClient() {
    return client;
  }

  /** The console started with the application. */
  public Console getConsole() {
    return console;
  }

  /** The agent metrics. */
  public Metrics getMetrics() {
    return metrics;
  }

  /** An agent declared in properties: {@code durable-agents.agents.<name>.*}. */
  public static class AgentSettings {
    /** The model name passed to the model provider. */
    private String model = "default";

    /** The agent's instructions (its system prompt). */
    private String instructions = "";

    /** The agent's tools: names of Tool beans (the name the model sees, Tool.name()). */
    private List<String> tools = new ArrayList<>();

    /** Most model turns of one run. */
    private int maxSteps = 20;

    /** How long an approval may wait for a decision before it expires. */
    private Duration approvalTimeout = Duration.ofDays(7);

    /** See {@link #setModel}. */
    public String getModel() {
      return model;
    }

    /** The model name passed to the model provider (default {@code default}). */
    public void setModel(String model) {
      this.model = model;
    }

    /** See {@link #setInstructions}. */
    public String getInstructions() {
      return instructions;
    }

    /** The agent's instructions. */
    public void setInstructions(String instructions) {
      this.instructions = instructions;
    }

    /** See {@link #setTools}. */
    public List<String> getTools() {
      return tools;
    }

    /** Names of Tool beans; an unknown name fails the application's start. */
    public void setTools(List<String> tools) {
      this.tools = tools;
    }

    /** See {@link #setMaxSteps}. */
    public int getMaxSteps() {
      return maxSteps;
    }

    /** Most model turns of one run (default 20). */
    public void setMaxSteps(int maxSteps) {
      this.maxSteps = maxSteps;
    }

    /** See {@link #setApprovalTimeout}. */
    public Duration getApprovalTimeout() {
      return approvalTimeout;
    }

    /** How long an approval waits for a decision (default 7 days). */
    public void setApprovalTimeout(Duration approvalTimeout) {
      this.approvalTimeout = approvalTimeout;
    }
  }

  /** {@code durable-agents.worker.*}: the plugin on the workers of Temporal's starter. */
  public static class Worker {
    /** Whether the plugin registers the agents on the workers of Temporal's starter. */
    private boolean enabled = true;

    /**
     * The task queues of Temporal's workers that get the session workflow and activities; each must
     * have a worker (spring.temporal.workers). Default: durable-agents.task-queue.
     */
    private List<String> taskQueues = new ArrayList<>();

    /** How long one tool hook may take on one call. */
    private Duration toolHookTimeout = Duration.ofSeconds(10);

    /** Largest tool result or model answer (serialized JSON bytes) an activity may return. */
    private int maxPayloadBytes = 524288;

    /** Characters of transcripts a worker keeps for the next model turns. */
    private long transcriptCacheChars = 33554432L;

    /** How often a running model turn or tool call learns of a cancel, at most. */
    private Duration cancelCheckInterval = Duration.ofMillis(500);

    /**
     * The workflow tasks' deadlock detection timeout, where the worker's options leave it unset.
     */
    private Duration deadlockDetectionTimeout = Duration.ofSeconds(5);

    /** Whether sessions upsert their search attributes. */
    private SearchAttributeUpserts searchAttributeUpserts = SearchAttributeUpserts.WHEN_REGISTERED;

    /** See {@link #setEnabled}. */
    public boolean isEnabled() {
      return enabled;
    }

    /** False for an application that only starts and reads sessions (default true). */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** See {@link #setTaskQueues}. */
    public List<String> getTaskQueues() {
      return taskQueues;
    }

    /** The task queues whose workers get the agents (default: durable-agents.task-queue). */
    public void setTaskQueues(List<String> taskQueues) {
      this.taskQueues = taskQueues;
    }

    /** See {@link #setToolHookTimeout}. */
    public Duration getToolHookTimeout() {
      return toolHookTimeout;
    }

    /** How long one tool hook may take on one call (default 10 s). */
    public void setToolHookTimeout(Duration toolHookTimeout) {
      this.toolHookTimeout = toolHookTimeout;
    }

    /** See {@link #setMaxPayloadBytes}. */
    public int getMaxPayloadBytes() {
      return maxPayloadBytes;
    }

    /** Largest tool result or model answer an activity may return (default 512 KiB). */
    public void setMaxPayloadBytes(int maxPayloadBytes) {
      this.maxPayloadBytes = maxPayloadBytes;
    }

    /** See {@link #setTranscriptCacheChars}. */
    public long getTranscriptCacheChars() {
      return transcriptCacheChars;
    }

    /** Characters of transcripts a worker keeps cached (default 32 Mi). */
    public void setTranscriptCacheChars(long transcriptCacheChars) {
      this.transcriptCacheChars = transcriptCacheChars;
    }

    /** See {@link #setCancelCheckInterval}. */
    public Duration getCancelCheckInterval() {
      return cancelCheckInterval;
    }

    /** How often running work learns of a cancel (default 500 ms). */
    public void setCancelCheckInterval(Duration cancelCheckInterval) {
      this.cancelCheckInterval = cancelCheckInterval;
    }

    /** See {@link #setDeadlockDetectionTimeout}. */
    public Duration getDeadlockDetectionTimeout() {
      return deadlockDetectionTimeout;
    }

    /** The workflow tasks' deadlock detection timeout (default 5 s). */
    public void setDeadlockDetectionTimeout(Duration deadlockDetectionTimeout) {
      this.deadlockDetectionTimeout = deadlockDetectionTimeout;
    }

    /** See {@link #setSearchAttributeUpserts}. */
    public SearchAttributeUpserts getSearchAttributeUpserts() {
      return searchAttributeUpserts;
    }

    /** Whether sessions upsert their search attributes (default when-registered). */
    public void setSearchAttributeUpserts(SearchAttributeUpserts searchAttributeUpserts) {
      this.searchAttributeUpserts = searchAttributeUpserts;
    }
  }

  /** {@code durable-agents.store.*}: where the workers save checkpoints. */
  public static class Store {
    /**
     * The store's JDBC URL (jdbc:sqlite:PATH or jdbc:postgresql://...). Unset: the application's
     * DataSource, or without one jdbc:sqlite:.agents/projection.db.
     */
    private String url;

    /** Whether the store uses the application's DataSource when store.url is unset. */
    private boolean useDataSource = true;

    /** Checkpoints kept per session in the history. */
    private int historyLimit = 50;

    /** See {@link #setUrl}. */
    public String getUrl() {
      return url;
    }

    /** The store's JDBC URL; unset: the DataSource, or the default SQLite file. */
    public void setUrl(String url) {
      this.url = url;
    }

    /** See {@link #setUseDataSource}. */
    public boolean isUseDataSource() {
      return useDataSource;
    }

    /** Whether the application's DataSource holds the store when no URL is set (default true). */
    public void setUseDataSource(boolean useDataSource) {
      this.useDataSource = useDataSource;
    }

    /** See {@link #setHistoryLimit}. */
    public int getHistoryLimit() {
      return historyLimit;
    }

    /** Checkpoints kept per session in the history (default 50). */
    public void setHistoryLimit(int historyLimit) {
      this.historyLimit = historyLimit;
    }
  }

  /** {@code durable-agents.projection.*}: what the ProjectionReader bean reads. */
  public static class Projection {
    /** The projection's JDBC URL; default: the store's (its URL, or the DataSource's). */
    private String url;

    /** See {@link #setUrl}. */
    public String getUrl() {
      return url;
    }

    /** The projection's JDBC URL (default: the store's). */
    public void setUrl(String url) {
      this.url = url;
    }
  }

  /** {@code durable-agents.client.*}: the AgentClient bean. */
  public static class Client {
    /** How long a call retries while its session recovers from a worker failure. */
    private Duration recoveryTimeout = Duration.ofMinutes(2);

    /** See {@link #setRecoveryTimeout}. */
    public Duration getRecoveryTimeout() {
      return recoveryTimeout;
    }

    /** How long a call retries while its session recovers (default 2 min). */
    public void setRecoveryTimeout(Duration recoveryTimeout) {
      this.recoveryTimeout = recoveryTimeout;
    }
  }

  /** {@code durable-agents.console.*}: the console, served by the application. */
  public static class Console {
    /** Whether the application serves the console (its pages and REST API). */
    private boolean enabled;

    /** The address it listens on; any but a loopback one needs authentication. */
    private String bind = "127.0.0.1";

    /** The port it listens on; 0 for a free one. */
    private int port = 8080;

    /** Bearer tokens by approver name (approver=token); sets token authentication. */
    private Map<String, String> tokens = new LinkedHashMap<>();

    /** A file of APPROVER TOKEN lines, read again when it changes; sets token authentication. */
    private Path tokensFile;

    /** The header a trusted reverse proxy names the user in; sets proxy authentication. */
    private String trustedHeader;

    /** How long a page's login lasts. */
    private Duration loginTimeout = Duration.ofHours(12);

    /** The Temporal UI's base URL, to link each session to its workflow. */
    private String temporalUiUrl;

    /** See {@link #setEnabled}. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Whether the application serves the console (default false). */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** See {@link #setBind}. */
    public String getBind() {
      return bind;
    }

    /** The address to listen on (default 127.0.0.1). */
    public void setBind(String bind) {
      this.bind = bind;
    }

    /** See {@link #setPort}. */
    public int getPort() {
      return port;
    }

    /** The port to listen on (default 8080; 0 for a free one). */
    public void setPort(int port) {
      this.port = port;
    }

    /** See {@link #setTokens}. */
    public Map<String, String> getTokens() {
      return tokens;
    }

    /** Bearer tokens by approver name. */
    public void setTokens(Map<String, String> tokens) {
      this.tokens = tokens;
    }

    /** See {@link #setTokensFile}. */
    public Path getTokensFile() {
      return tokensFile;
    }

    /** A tokens file ({@code APPROVER TOKEN} per line). */
    public void setTokensFile(Path tokensFile) {
      this.tokensFile = tokensFile;
    }

    /** See {@link #setTrustedHeader}. */
    public String getTrustedHeader() {
      return trustedHeader;
    }

    /** The header a trusted proxy names the user in. */
    public void setTrustedHeader(String trustedHeader) {
      this.trustedHeader = trustedHeader;
    }

    /** See {@link #setLoginTimeout}. */
    public Duration getLoginTimeout() {
      return loginTimeout;
    }

    /** How long a page's login lasts (default 12 h). */
    public void setLoginTimeout(Duration loginTimeout) {
      this.loginTimeout = loginTimeout;
    }

    /** See {@link #setTemporalUiUrl}. */
    public String getTemporalUiUrl() {
      return temporalUiUrl;
    }

    /** The Temporal UI's base URL (default: no links). */
    public void setTemporalUiUrl(String temporalUiUrl) {
      this.temporalUiUrl = temporalUiUrl;
    }
  }

  /** {@code durable-agents.metrics.*}. */
  public static class Metrics {
    /**
     * Whether the agent metrics go to the MeterRegistry bean (needs durable-agents-micrometer on
     * the classpath).
     */
    private boolean enabled = true;

    /** See {@link #setEnabled}. */
    public boolean isEnabled() {
      return enabled;
    }

    /** Whether the agent metrics are recorded (default true). */
    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
