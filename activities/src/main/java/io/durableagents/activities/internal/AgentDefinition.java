package io.durableagents.activities.internal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.agent.Agent;
import io.durableagents.agent.SubAgent;
import io.durableagents.tools.ApprovalPolicy;
import io.durableagents.tools.Tool;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * What a run's behaviour depends on, as recorded when the run starts: the model, the instructions,
 * the tool declarations the model sees (name, description, input schema, approval policy), the
 * structured-output schema, the budgets, the context settings (only those made, so definitions
 * without them keep their fingerprints) and the run configuration. Its fingerprint names it in the
 * store, so every turn of the run uses it whatever the worker's agent says by then. Sub-agents are
 * declared as tools that name the definition of the sub-agent. Tool code and the execution settings
 * (timeouts, retries, task queues) are not part of it: those are whatever the worker runs.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
record AgentDefinition(
    @JsonProperty("agent") String agent,
    @JsonProperty("model") String model,
    @JsonProperty("instructions") String instructions,
    @JsonProperty("tools") List<ToolDeclaration> tools,
    @JsonProperty("outputSchema") JsonNode outputSchema,
    @JsonProperty("maxSteps") int maxSteps,
    @JsonProperty("maxTokens") long maxTokens,
    @JsonProperty("runTimeoutMs") long runTimeoutMs,
    @JsonProperty("runConfig") JsonNode runConfig,
    @JsonProperty("context") ContextDefinition context) {

  private static final ObjectMapper CANONICAL = new ObjectMapper();

  /** The policy of a declaration: {@code always}, {@code never}, or {@code custom} (code). */
  static final String ALWAYS = "always";

  static final String NEVER = "never";
  static final String CUSTOM = "custom";

  AgentDefinition {
    tools = tools == null ? List.of() : List.copyOf(tools);
    outputSchema = absentIfNull(outputSchema);
    runConfig = absentIfNull(runConfig);
  }

  /** JSON read back gives a null node where the definition had none: the same definition. */
  private static JsonNode absentIfNull(JsonNode node) {
    return node == null || node.isNull() || node.isMissingNode() ? null : node;
  }

  /**
   * A tool as the model and the approval gate see it. A sub-agent's declaration also names the
   * agent ({@code agent}) and the fingerprint of its definition ({@code agentFingerprint}), so a
   * change of the sub-agent changes this definition's fingerprint: drift of the runs that use it.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ToolDeclaration(
      @JsonProperty("name") String name,
      @JsonProperty("description") String description,
      @JsonProperty("schema") JsonNode schema,
      @JsonProperty("approval") String approval,
      @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("agent") String agent,
      @JsonInclude(JsonInclude.Include.NON_NULL) @JsonProperty("agentFingerprint")
          String agentFingerprint) {

    ToolDeclaration {
      schema = absentIfNull(schema);
    }

    ToolDeclaration(String name, String description, JsonNode schema, String approval) {
      this(name, description, schema, approval, null, null);
    }
  }

  /** The definition of {@code agent} for a run with {@code runConfig} (null: none). */
  static AgentDefinition of(Agent agent, JsonNode runConfig) {
    List<ToolDeclaration> tools = new ArrayList<>();
    for (Tool tool : agent.tools()) {
      tools.add(
          new ToolDeclaration(
              tool.name(),
              tool.description(),
              tool.inputSchema(),
              approval(tool.approvalPolicy())));
    }
    for (SubAgent subAgent : agent.subAgents()) {
      tools.add(
          new ToolDeclaration(
              subAgent.name(),
              subAgent.description(),
              subAgent.inputSchema(),
              NEVER,
              subAgent.name(),
              of(subAgent.agent(), null).fingerprint()));
    }
    return new AgentDefinition(
        agent.name(),
        agent.model(),
        agent.instructions(),
        tools,
        agent.outputSchema(),
        agent.maxSteps(),
        agent.maxTokens(),
        agent.runTimeout() == null ? 0 : agent.runTimeout().toMillis(),
        runConfig == null || runConfig.isEmpty() ? null : runConfig,
        ContextDefinition.of(agent.contextOptions()));
  }

  private static String approval(ApprovalPolicy policy) {
    if (policy == ApprovalPolicy.ALWAYS) {
      return ALWAYS;
    }
    return policy == ApprovalPolicy.NEVER ? NEVER : CUSTOM;
  }

  /** The declaration of {@code toolName}, or null when the definition has no such tool. */
  ToolDeclaration tool(String toolName) {
    for (ToolDeclaration tool : tools) {
      if (tool.name().equals(toolName)) {
        return tool;
      }
    }
    return null;
  }

  /**
   * The definition as JSON, in record order (schemas keep their own key order): equal definitions
   * give equal JSON, and a definition read back from its JSON gives the same JSON again.
   */
  String toJson() {
    try {
      return CANONICAL.writeValueAsString(CANONICAL.valueToTree(this));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("An agent definition cannot be written as JSON", e);
    }
  }

  static AgentDefinition fromJson(String json) {
    try {
      return CANONICAL.readValue(json, AgentDefinition.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("A stored agent definition is not readable: " + e, e);
    }
  }

  /** How every fingerprint of a definition begins. */
  static final String FINGERPRINT_PREFIX = "def:";

  /** {@code def:} and the SHA-256 of the canonical JSON, shortened to 128 bits. */
  @JsonIgnore
  String fingerprint() {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256").digest(toJson().getBytes(StandardCharsets.UTF_8));
      return FINGERPRINT_PREFIX + HexFormat.of().formatHex(hash, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
