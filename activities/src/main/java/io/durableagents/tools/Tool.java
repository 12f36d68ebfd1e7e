package io.durableagents.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Execution;
import io.durableagents.tools.internal.RecordSchemas;
import io.durableagents.tools.internal.SchemaValidator;
import io.temporal.common.RetryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A tool an agent may call: name, description, JSON schema of its arguments and the handler that
 * runs it. Each call runs as one Temporal activity with this tool's timeout and retry policy.
 *
 * <pre>{@code
 * record Weather(String city) {}
 *
 * Tool weather = Tool.newBuilder("get_weather")
 *     .setDescription("Current weather for a city")
 *     .setHandler(Weather.class, (in, ctx) -> Map.of("city", in.city(), "forecast", "sunny"))
 *     .build();
 * }</pre>
 */
public final class Tool {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final String name;
  private final String description;
  private final JsonNode inputSchema;
  private final ToolHandler handler;
  private final Duration timeout;
  private final int maxAttempts;
  private final SchemaValidator validator;
  private final ApprovalPolicy approvalPolicy;
  private final Execution execution;
  private final String taskQueue;
  private final RetryOptions retryOptions;

  private Tool(Builder builder) {
    this.name = builder.name;
    this.description = builder.description;
    this.inputSchema = builder.inputSchema;
    this.handler = builder.handler;
    this.timeout = builder.timeout;
    this.maxAttempts = builder.maxAttempts;
    this.validator = new SchemaValidator(inputSchema);
    this.approvalPolicy = builder.approvalPolicy;
    this.execution = builder.execution;
    this.taskQueue = builder.taskQueue;
    this.retryOptions = builder.retryOptions;
  }

  /** The task queue its calls run on; null for the session workflow's. */
  public String taskQueue() {
    return taskQueue;
  }

  /** The retry options of its calls; null for the default policy of {@link #maxAttempts()}. */
  public RetryOptions retryOptions() {
    return retryOptions;
  }

  /** Whether calls run as regular activities (default) or local activities. */
  public Execution execution() {
    return execution;
  }

  /** A builder for a tool of that name. */
  public static Builder newBuilder(String name) {
    return new Builder(name);
  }

  /** A builder holding this tool's settings, to derive a changed copy of it. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The name the model calls it by, unique within one agent. */
  public String name() {
    return name;
  }

  /** What the tool does, as told to the model; empty unless set. */
  public String description() {
    return description;
  }

  /** The JSON schema its arguments are validated against before the handler runs (a copy). */
  public JsonNode inputSchema() {
    return inputSchema.deepCopy();
  }

  /** The code that runs a call. */
  public ToolHandler handler() {
    return handler;
  }

  /** Start-to-close timeout of one attempt. */
  public Duration timeout() {
    return timeout;
  }

  /** Attempts for transient failures, including the first. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** Decides which calls wait for a human decision ({@link ApprovalPolicy#NEVER} by default). */
  public ApprovalPolicy approvalPolicy() {
    return approvalPolicy;
  }

  /** Whether a call with these (valid) arguments waits for a human decision before it runs. */
  public boolean needsApproval(JsonNode arguments) {
    return approvalPolicy.needsApproval(arguments);
  }

  /** Problems of {@code arguments} against the schema; empty when they are valid. */
  public List<String> validate(JsonNode arguments) {
    return validator.validate(arguments);
  }

  /** Builds a {@link Tool}; see {@link Tool#newBuilder(String)} and {@link Tool#toBuilder()}. */
  public static final class Builder {
    private final String name;
    private String description = "";
    private JsonNode inputSchema;
    private ToolHandler handler;
    private Duration timeout = Duration.ofMinutes(1);
    private int maxAttempts = 3;
    private ApprovalPolicy approvalPolicy = ApprovalPolicy.NEVER;
    private Execution execution = Execution.ACTIVITY;
    private String taskQueue;
    private RetryOptions retryOptions;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    private Builder(Tool tool) {
      this.name = tool.name;
      this.description = tool.description;
      this.inputSchema = tool.inputSchema;
      this.handler = tool.handler;
      this.timeout = tool.timeout;
      this.maxAttempts = tool.maxAttempts;
      this.approvalPolicy = tool.approvalPolicy;
      this.execution = tool.execution;
      this.taskQueue = tool.taskQueue;
      this.retryOptions = tool.retryOptions;
    }

    /** What the tool does, as told to the model (default empty). */
    public Builder setDescription(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    /** The JSON schema of the arguments, as a JSON string. */
    public Builder setInputSchema(String jsonSchema) {
      try {
        return setInputSchema(MAPPER.readTree(Objects.requireNonNull(jsonSchema, "jsonSchema")));
      } catch (java.io.IOException e) {
        throw new IllegalArgumentException(
            "Tool '" + name + "': schema is not JSON: " + e.getMessage(), e);
      }
    }

    /** The JSON schema of the arguments (copied); without one, any JSON object is accepted. */
    public Builder setInputSchema(JsonNode jsonSchema) {
      this.inputSchema = Objects.requireNonNull(jsonSchema, "jsonSchema").deepCopy();
      return this;
    }

    /** The code that runs a call with the validated JSON arguments. */
    public Builder setHandler(ToolHandler handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * A handler that gets the arguments bound to {@code type}. Unless a schema was given, one is
     * derived from the record's components (all required).
     */
    public <T> Builder setHandler(Class<T> type, TypedToolHandler<T> handler) {
      Objects.requireNonNull(type, "type");
      Objects.requireNonNull(handler, "handler");
      if (inputSchema == null) {
        inputSchema = RecordSchemas.schemaFor(type);
      }
      this.handler = (args, ctx) -> handler.execute(MAPPER.treeToValue(args, type), ctx);
      return this;
    }

    /**
     * Calls for which {@code policy} answers true wait for a human decision before they run: {@link
     * ApprovalPolicy#ALWAYS} gates every call (default {@link ApprovalPolicy#NEVER}).
     */
    public Builder setApprovalPolicy(ApprovalPolicy policy) {
      this.approvalPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** {@link Execution#LOCAL_ACTIVITY} for fast tools; see {@link Execution}. */
    public Builder setExecution(Execution execution) {
      this.execution = Objects.requireNonNull(execution, "execution");
      return this;
    }

    /** Start-to-close timeout of one attempt (default 1 minute); a longer attempt is retried. */
    public Builder setTimeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /** Attempts for transient failures, including the first (default 3; backoff 500 ms to 30 s). */
    public Builder setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /**
     * Runs the calls on another task queue, e.g. workers near a GPU or inside a network zone; those
     * workers need the plugin with this agent too. Null (default): the session workflow's queue. A
     * local tool runs on the workflow's worker and has no queue of its own.
     */
    public Builder setTaskQueue(String taskQueue) {
      this.taskQueue = taskQueue;
      return this;
    }

    /**
     * Retry options of the calls, replacing the default policy of {@link #setMaxAttempts(int)}
     * attempts. Null (default): that policy.
     */
    public Builder setRetryOptions(RetryOptions retryOptions) {
      this.retryOptions = retryOptions;
      return this;
    }

    /**
     * The tool; refuses an invalid name (1-64 letters, digits, '_' or '-'), a missing handler or an
     * invalid budget.
     */
    public Tool build() {
      if (!name.matches("[A-Za-z0-9_-]{1,64}")) {
        throw new IllegalArgumentException(
            "Tool name '" + name + "' must be 1-64 letters, digits, '_' or '-'.");
      }
      if (handler == null) {
        throw new IllegalStateException("Tool '" + name + "' has no handler.");
      }
      if (inputSchema == null) {
        inputSchema = MAPPER.createObjectNode().put("type", "object");
      }
      if (timeout.isZero() || timeout.isNegative()) {
        throw new IllegalArgumentException("Tool '" + name + "': timeout must be positive.");
      }
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("Tool '" + name + "': maxAttempts must be at least 1.");
      }
      if (taskQueue != null && (taskQueue.isBlank() || execution == Execution.LOCAL_ACTIVITY)) {
        throw new IllegalArgumentException(
            "Tool '"
                + name
                + "': "
                + (taskQueue.isBlank()
                    ? "taskQueue must not be blank."
                    : "a local tool runs on the session workflow's worker and cannot have a taskQueue."));
      }
      return new Tool(this);
    }
  }
}
