package io.durableagents.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.activities.internal.ContextFit;
import io.durableagents.model.ModelProvider;
import io.durableagents.tools.Tool;
import io.durableagents.tools.ToolHook;
import io.durableagents.tools.ToolProvider;
import io.durableagents.tools.internal.SchemaValidator;
import io.durableagents.workflow.TriggerEnvelope;
import io.temporal.common.RetryOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * An agent, defined on the worker side and registered with the plugin: a name, a model,
 * instructions, tools and the default per-run budgets.
 *
 * <pre>{@code
 * Agent concierge = Agent.newBuilder("concierge")
 *     .setModel("gpt-4o-mini")
 *     .setInstructions("You book restaurant tables.")
 *     .setTools(weatherTool, findRestaurantTool)
 *     .setMaxSteps(10)
 *     .build();
 * }</pre>
 */
public final class Agent {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String name;
  private final String model;
  private final String instructions;
  private final Map<String, Tool> tools;
  private final ModelProvider modelProvider;
  private final int maxSteps;
  private final int toolConcurrency;
  private final Duration modelTimeout;
  private final int modelMaxAttempts;
  private final Duration approvalTimeout;
  private final ApprovalNotifier approvalNotifier;
  private final long maxTokens;
  private final Duration runTimeout;
  private final Execution modelExecution;
  private final JsonNode outputSchema;
  private final SchemaValidator outputValidator;
  private final String taskQueue;
  private final RetryOptions retryOptions;
  private final DriftPolicy onAgentDrift;
  private final Duration idleTimeout;
  private final Function<TriggerEnvelope, String> concurrencyKey;
  private final List<ToolHook> toolHooks;
  private final ProvidedTools provided;
  private final List<SubAgent> subAgents;
  private final ContextOptions contextOptions;

  private Agent(Builder builder) {
    this.name = builder.name;
    this.model = builder.model;
    this.instructions = builder.instructions;
    Map<String, Tool> byName = new LinkedHashMap<>();
    for (Tool tool : builder.tools) {
      if (byName.put(tool.name(), tool) != null) {
        throw new IllegalArgumentException(
            "Agent '" + name + "' has two tools named '" + tool.name() + "'.");
      }
    }
    this.tools = Collections.unmodifiableMap(byName);
    for (SubAgent subAgent : builder.subAgents) {
      if (byName.containsKey(subAgent.name())) {
        throw new IllegalArgumentException(
            "Agent '" + name + "' has a tool and a sub-agent named '" + subAgent.name() + "'.");
      }
    }
    this.subAgents = List.copyOf(builder.subAgents);
    this.modelProvider = builder.modelProvider;
    this.maxSteps = builder.maxSteps;
    this.toolConcurrency = builder.toolConcurrency;
    this.modelTimeout = builder.modelTimeout;
    this.modelMaxAttempts = builder.modelMaxAttempts;
    this.approvalTimeout = builder.approvalTimeout;
    this.approvalNotifier = builder.approvalNotifier;
    this.maxTokens = builder.maxTokens;
    this.runTimeout = builder.runTimeout;
    this.modelExecution = builder.modelExecution;
    this.outputSchema = builder.outputSchema;
    this.outputValidator = outputSchema == null ? null : new SchemaValidator(outputSchema);
    this.taskQueue = builder.taskQueue;
    this.retryOptions = builder.retryOptions;
    this.onAgentDrift = builder.onAgentDrift;
    this.idleTimeout = builder.idleTimeout;
    this.concurrencyKey = builder.concurrencyKey;
    this.toolHooks = List.copyOf(builder.toolHooks);
    this.provided = new ProvidedTools(name, builder.toolProviders, byName.keySet());
    this.contextOptions = builder.contextOptions;
    ContextFit.require(this);
  }

  /**
   * What the agent's model can read in one request and how its runs stay within it (see {@link
   * ContextOptions}).
   */
  public ContextOptions contextOptions() {
    return contextOptions;
  }

  /**
   * The concurrency key of a run {@code trigger} starts, by the agent's default ({@link
   * Builder#setConcurrencyKey}); null without a default, a trigger or a key.
   */
  public String concurrencyKeyOf(TriggerEnvelope trigger) {
    return concurrencyKey == null || trigger == null ? null : concurrencyKey.apply(trigger);
  }

  /**
   * The agent's tool hooks, in the order added; they run after the plugin's (see {@link ToolHook}).
   */
  public List<ToolHook> toolHooks() {
    return toolHooks;
  }

  /** What a worker does when a run resumes under a changed definition of this agent. */
  public DriftPolicy onAgentDrift() {
    return onAgentDrift;
  }

  /** The task queue its model turns run on; null for the session workflow's. */
  public String taskQueue() {
    return taskQueue;
  }

  /**
   * The retry options of its model turns; null for the default policy of {@link
   * #modelMaxAttempts()}.
   */
  public RetryOptions retryOptions() {
    return retryOptions;
  }

  /** The JSON schema the final answer must satisfy, or null for free text. */
  public JsonNode outputSchema() {
    return outputSchema == null ? null : outputSchema.deepCopy();
  }

  /**
   * Parses a final answer against the output schema: the parsed JSON, or an exception saying why it
   * is not valid. A Markdown code fence around the JSON is tolerated.
   */
  public JsonNode parseOutput(String text) {
    String json = text == null ? "" : text.strip();
    if (json.startsWith("```")) {
      json = json.replaceFirst("^```[a-zA-Z]*\\s*", "").replaceFirst("\\s*```$", "");
    }
    JsonNode parsed;
    try {
      parsed = JSON.readTree(json);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException("The final answer is not JSON: " + e.getOriginalMessage());
    }
    if (parsed == null || parsed.isMissingNode()) {
      throw new IllegalArgumentException(
          "The final answer is empty; the agent has an output schema.");
    }
    List<String> problems = outputValidator.validate(parsed);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "The final answer does not match the output schema: " + String.join("; ", problems));
    }
    return parsed;
  }

  /** Whether model turns run as regular activities (default) or local activities. */
  public Execution modelExecution() {
    return modelExecution;
  }

  /** Input + output tokens one run may use; 0 for no limit. */
  public long maxTokens() {
    return maxTokens;
  }

  /**
   * Wall-clock limit of one run, or null for none. Each execution gets the full timeout: the clock
   * stops while the run waits for an approval and starts again after the decision.
   */
  public Duration runTimeout() {
    return runTimeout;
  }

  /**
   * How long a session of this agent waits for its next send before it closes itself (default 30
   * days): its workflow completes, which lets the worker deployment version it was pinned to drain;
   * the projection keeps everything, and a later send starts it again from its last entry.
   */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /** A builder for an agent of that name. */
  public static Builder newBuilder(String name) {
    return new Builder(name);
  }

  /** A builder holding this agent's settings, to derive a changed copy of it. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The agent's name, unique among the agents registered with one plugin. */
  public String name() {
    return name;
  }

  /** The model name passed to the provider (provider specific); {@code "default"} unless set. */
  public String model() {
    return model;
  }

  /** The system instructions sent with every model turn; empty unless set. */
  public String instructions() {
    return instructions;
  }

  /**
   * The agent's tools: those set, in their order, then those its {@link ToolProvider}s listed last
   * (listed first if no run of the agent started on this worker yet).
   */
  public List<Tool> tools() {
    if (provided.providers().isEmpty()) {
      return List.copyOf(tools.values());
    }
    List<Tool> all = new ArrayList<>(tools.values());
    all.addAll(provided.current());
    return Collections.unmodifiableList(all);
  }

  /**
   * The tool of that name, or null; a name its providers did not list last is asked of them anew.
   */
  public Tool tool(String toolName) {
    Tool tool = tools.get(toolName);
    return tool != null ? tool : provided.find(toolName);
  }

  /** The agents this agent can hand tasks to, in the order added. */
  public List<SubAgent> subAgents() {
    return subAgents;
  }

  /** The providers the agent takes more tools from, in the order added. */
  public List<ToolProvider> toolProviders() {
    return provided.providers();
  }

  /**
   * Lists the tools of the agent's providers again, as each run does when it starts.
   *
   * @throws ToolProviderUnavailableException when a required provider cannot list its tools
   */
  public void listToolProviders() {
    provided.list();
  }

  /** The agent's own provider, or null to use the plugin's default provider. */
  public ModelProvider modelProvider() {
    return modelProvider;
  }

  /** Model turns one run may take. */
  public int maxSteps() {
    return maxSteps;
  }

  /** Consecutive runnable tool calls of one turn that may run at the same time. */
  public int toolConcurrency() {
    return toolConcurrency;
  }

  /** Time limit of one model turn attempt (start to close); 5 minutes unless set. */
  public Duration modelTimeout() {
    return modelTimeout;
  }

  /** Attempts of one model turn, including the first, when no {@link #retryOptions()} are set. */
  public int modelMaxAttempts() {
    return modelMaxAttempts;
  }

  /** How long a gated call waits for a decision before it gets {@code approval_expired}. */
  public Duration approvalTimeout() {
    return approvalTimeout;
  }

  /** Told about every new approval, or null. */
  public ApprovalNotifier approvalNotifier() {
    return approvalNotifier;
  }

  /**
   * Builds an {@link Agent}; see {@link Agent#newBuilder(String)} and {@link Agent#toBuilder()}.
   */
  public static final class Builder {
    private final String name;
    private String model = "default";
    private String instructions = "";
    private final List<Tool> tools = new ArrayList<>();
    private ModelProvider modelProvider;
    private int maxSteps = 20;
    private int toolConcurrency = 4;
    private Duration modelTimeout = Duration.ofMinutes(5);
    private int modelMaxAttempts = 4;
    private Duration approvalTimeout = Duration.ofDays(7);
    private ApprovalNotifier approvalNotifier;
    private long maxTokens;
    private Duration runTimeout;
    private Execution modelExecution = Execution.ACTIVITY;
    private JsonNode outputSchema;
    private String taskQueue;
    private RetryOptions retryOptions;
    private DriftPolicy onAgentDrift = DriftPolicy.WARN;
    private Duration idleTimeout = Duration.ofDays(30);
    private Function<TriggerEnvelope, String> concurrencyKey;
    private final List<ToolHook> toolHooks = new ArrayList<>();
    private final List<ToolProvider> toolProviders = new ArrayList<>();
    private final List<SubAgent> subAgents = new ArrayList<>();
    private ContextOptions contextOptions = ContextOptions.getDefaultInstance();

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    private Builder(Agent agent) {
      this.name = agent.name;
      this.model = agent.model;
      this.instructions = agent.instructions;
      this.tools.addAll(agent.tools.values());
      this.modelProvider = agent.modelProvider;
      this.maxSteps = agent.maxSteps;
      this.toolConcurrency = agent.toolConcurrency;
      this.modelTimeout = agent.modelTimeout;
      this.modelMaxAttempts = agent.modelMaxAttempts;
      this.approvalTimeout = agent.approvalTimeout;
      this.approvalNotifier = agent.approvalNotifier;
      this.maxTokens = agent.maxTokens;
      this.runTimeout = agent.runTimeout;
      this.modelExecution = agent.modelExecution;
      this.outputSchema = agent.outputSchema;
      this.taskQueue = agent.taskQueue;
      this.retryOptions = agent.retryOptions;
      this.onAgentDrift = agent.onAgentDrift;
      this.idleTimeout = agent.idleTimeout;
      this.concurrencyKey = agent.concurrencyKey;
      this.toolHooks.addAll(agent.toolHooks);
      this.toolProviders.addAll(agent.provided.providers());
      this.subAgents.addAll(agent.subAgents);
      this.contextOptions = agent.contextOptions;
    }

    /** The model name passed to the provider (default {@code "default"}). */
    public Builder setModel(String model) {
      this.model = Objects.requireNonNull(model, "model");
      return this;
    }

    /** The system instructions sent with every model turn (default empty). */
    public Builder setInstructions(String instructions) {
      this.instructions = Objects.requireNonNull(instructions, "instructions");
      return this;
    }

    /** The agent's tools, replacing any set before; names must be unique. */
    public Builder setTools(Tool... tools) {
      return setTools(List.of(tools));
    }

    /** The agent's tools, replacing any set before; names must be unique. */
    public Builder setTools(List<Tool> tools) {
      List<Tool> copy = List.copyOf(tools); // refuses a null list or tool before clearing
      this.tools.clear();
      this.tools.addAll(copy);
      return this;
    }

    /** Tools added to those set before, e.g. to a builder of {@link Agent#toBuilder()}. */
    public Builder addTools(Tool... tools) {
      this.tools.addAll(List.of(tools));
      return this;
    }

    /**
     * Adds a provider of more tools, such as an MCP server, listed again at each run's start (see
     * {@link ToolProvider}).
     */
    public Builder addToolProvider(ToolProvider provider) {
      toolProviders.add(Objects.requireNonNull(provider, "provider"));
      return this;
    }

    /**
     * Lets the model hand tasks to {@code agent}, shown to it as a tool named after the agent with
     * {@code description}: each call runs the agent as a child session (see {@link SubAgent}). The
     * plugin serves the sub-agent as well. Sub-agents nest at most 3 levels deep.
     */
    public Builder addSubAgent(Agent agent, String description) {
      SubAgent subAgent = new SubAgent(agent, description);
      for (SubAgent added : subAgents) {
        if (added.name().equals(subAgent.name())) {
          throw new IllegalArgumentException(
              "Agent '" + name + "' has two sub-agents named '" + subAgent.name() + "'.");
        }
      }
      subAgents.add(subAgent);
      return this;
    }

    /** A provider for this agent alone, instead of the plugin's default provider. */
    public Builder setModelProvider(ModelProvider modelProvider) {
      this.modelProvider = Objects.requireNonNull(modelProvider, "modelProvider");
      return this;
    }

    /** Model turns one run may take (default 20, at least 1). */
    public Builder setMaxSteps(int maxSteps) {
      this.maxSteps = maxSteps;
      return this;
    }

    /** Consecutive runnable tool calls of one turn that may run at the same time (default 4). */
    public Builder setToolConcurrency(int toolConcurrency) {
      this.toolConcurrency = toolConcurrency;
      return this;
    }

    /** Time limit of one model turn attempt (default 5 minutes); a longer attempt is retried. */
    public Builder setModelTimeout(Duration modelTimeout) {
      this.modelTimeout = Objects.requireNonNull(modelTimeout, "modelTimeout");
      return this;
    }

    /** Attempts of one model turn, including the first (default 4; backoff 1 s to 30 s). */
    public Builder setModelMaxAttempts(int modelMaxAttempts) {
      this.modelMaxAttempts = modelMaxAttempts;
      return this;
    }

    /**
     * Runs the model turns on another task queue, e.g. workers allowed to reach the provider; those
     * workers need the plugin with this agent too. Null (default): the session workflow's queue.
     * Local model turns run on the workflow's worker and have no queue of their own.
     */
    public Builder setTaskQueue(String taskQueue) {
      this.taskQueue = taskQueue;
      return this;
    }

    /**
     * Retry options of the model turns, replacing the default policy of {@link
     * #setModelMaxAttempts(int)} attempts. Failures no retry can fix (an invalid request or
     * response) are never retried, whatever these say.
     */
    public Builder setRetryOptions(RetryOptions retryOptions) {
      this.retryOptions = retryOptions;
      return this;
    }

    /**
     * The JSON schema of the final answer (structured output). The answer is parsed and validated;
     * the run result's {@code output} holds it, and an invalid answer fails the run with {@code
     * invalid_output}.
     */
    public Builder setOutputSchema(String jsonSchema) {
      try {
        this.outputSchema = JSON.readTree(Objects.requireNonNull(jsonSchema, "jsonSchema"));
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException("Agent '" + name + "': output schema is not JSON", e);
      }
      return this;
    }

    /** {@link Execution#LOCAL_ACTIVITY} for low-latency models; see {@link Execution}. */
    public Builder setModelExecution(Execution modelExecution) {
      this.modelExecution = Objects.requireNonNull(modelExecution, "modelExecution");
      return this;
    }

    /**
     * The model's context window, the output budget and how runs compact what the model sees (see
     * {@link ContextOptions}; default: every setting's default).
     */
    public Builder setContextOptions(ContextOptions contextOptions) {
      this.contextOptions = Objects.requireNonNull(contextOptions, "contextOptions");
      return this;
    }

    /** Input + output tokens one run may use; the run stops before the next model call past it. */
    public Builder setMaxTokens(long maxTokens) {
      if (maxTokens < 0) {
        throw new IllegalArgumentException("maxTokens must not be negative");
      }
      this.maxTokens = maxTokens;
      return this;
    }

    /** Wall-clock limit of one run (a durable timer); null for none. */
    public Builder setRunTimeout(Duration runTimeout) {
      if (runTimeout != null && (runTimeout.isZero() || runTimeout.isNegative())) {
        throw new IllegalArgumentException("runTimeout must be positive");
      }
      this.runTimeout = runTimeout;
      return this;
    }

    /**
     * How long an idle session waits for its next send before it closes itself (default 30 days;
     * see {@link Agent#idleTimeout()}). The wait is one durable timer per idle period.
     */
    public Builder setIdleTimeout(Duration idleTimeout) {
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      if (idleTimeout.isZero() || idleTimeout.isNegative()) {
        throw new IllegalArgumentException("idleTimeout must be positive");
      }
      this.idleTimeout = idleTimeout;
      return this;
    }

    /**
     * How long a gated call waits for a decision before it gets {@code approval_expired} (default 7
     * days).
     */
    public Builder setApprovalTimeout(Duration approvalTimeout) {
      this.approvalTimeout = Objects.requireNonNull(approvalTimeout, "approvalTimeout");
      return this;
    }

    /**
     * What a worker does when a run resumes on it under a changed definition of this agent (default
     * {@link DriftPolicy#WARN}).
     */
    public Builder setOnAgentDrift(DriftPolicy onAgentDrift) {
      this.onAgentDrift = Objects.requireNonNull(onAgentDrift, "onAgentDrift");
      return this;
    }

    /**
     * The concurrency key of the runs a trigger starts, computed from the trigger's envelope (e.g.
     * the customer or repository it names; null: no key). Runs that share a key run one at a time,
     * first come first served, across all sessions and workers; a key sent with the run ({@code
     * SendOptions.setConcurrencyKey}) wins. Called on the worker when a run starts, never in
     * workflow code; a key over 200 characters or with control characters fails the run with {@code
     * invalid_input}. Default: none.
     *
     * <pre>{@code
     * Agent.newBuilder("triage")
     *     .setConcurrencyKey(trigger -> "repo:" + trigger.payload().path("repository").asText())
     *     .build();
     * }</pre>
     */
    public Builder setConcurrencyKey(Function<TriggerEnvelope, String> concurrencyKey) {
      this.concurrencyKey = Objects.requireNonNull(concurrencyKey, "concurrencyKey");
      return this;
    }

    /**
     * Adds a hook that sees every call of this agent's tools before and after it runs, after the
     * plugin's hooks (see {@link ToolHook}). Hooks are code, not part of the agent's recorded
     * definition: changing them is no drift.
     */
    public Builder addToolHook(ToolHook hook) {
      toolHooks.add(Objects.requireNonNull(hook, "hook"));
      return this;
    }

    /** Told about every new approval, e.g. to page a reviewer (default none). */
    public Builder setApprovalNotifier(ApprovalNotifier approvalNotifier) {
      this.approvalNotifier = Objects.requireNonNull(approvalNotifier, "approvalNotifier");
      return this;
    }

    /** The agent; refuses an invalid name (1-64 letters, digits, '_', '.' or '-') or budget. */
    public Agent build() {
      if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
        throw new IllegalArgumentException(
            "Agent name '" + name + "' must be 1-64 letters, digits, '_', '.' or '-'.");
      }
      if (maxSteps < 1) {
        throw new IllegalArgumentException("Agent '" + name + "': maxSteps must be at least 1.");
      }
      if (toolConcurrency < 1) {
        throw new IllegalArgumentException(
            "Agent '" + name + "': toolConcurrency must be at least 1.");
      }
      if (modelMaxAttempts < 1) {
        throw new IllegalArgumentException(
            "Agent '" + name + "': modelMaxAttempts must be at least 1.");
      }
      if (approvalTimeout.isZero() || approvalTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "Agent '" + name + "': approvalTimeout must be positive.");
      }
      if (modelTimeout.isZero() || modelTimeout.isNegative()) {
        throw new IllegalArgumentException("Agent '" + name + "': modelTimeout must be positive.");
      }
      if (taskQueue != null
          && (taskQueue.isBlank() || modelExecution == Execution.LOCAL_ACTIVITY)) {
        throw new IllegalArgumentException(
            "Agent '"
                + name
                + "': "
                + (taskQueue.isBlank()
                    ? "taskQueue must not be blank."
                    : "local model turns run on the session workflow's worker and cannot have a taskQueue."));
      }
      return new Agent(this);
    }
  }
}
