package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.agent.Agent;
import io.durableagents.agent.DriftPolicy;
import io.durableagents.agent.SubAgent;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.store.StoreException;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.RunResolution;
import io.durableagents.workflow.internal.wire.SendRules;
import io.temporal.failure.ApplicationFailure;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The definitions runs record and the checks against them. A run records its definition once, in
 * the store under its fingerprint; each later turn and tool call of the run names that fingerprint,
 * and the worker compares it with the definition it would use now. When they differ (a deploy
 * changed the agent), the agent's {@link DriftPolicy} decides: the run goes on with its recorded
 * definition ({@code warn}: noted once in the log and on the run's entries; {@code ignore}), or it
 * fails with {@code agent_drift} ({@code error}). A fingerprint the store does not know was
 * recorded by a version without definitions: such a run goes on with the worker's agent, as it did.
 *
 * <p>A turn or call whose fingerprint is that of the worker's own static agent (no run
 * configuration, no change since the run started) reads nothing: only other definitions are read
 * from the store, once per worker. A failing store is reported as the {@link StoreException} itself
 * ({@link io.durableagents.store.StoreUnavailableException} for an outage): each activity decides
 * how its attempt ends ({@link StoreFailures}).
 */
public final class AgentDefinitions {
  private static final Logger log = LoggerFactory.getLogger(AgentDefinitions.class);
  private static final int CACHED = 1024;

  private final AgentRegistry registry;
  private final CheckpointStore store;
  private final Map<String, AgentDefinition> recorded = lru();
  private final Map<String, String> currentFingerprints = lru();
  private final Set<String> warned = Collections.synchronizedSet(Collections.newSetFromMap(lru()));
  private AgentMetrics metrics = AgentMetrics.NONE;

  public AgentDefinitions(AgentRegistry registry, CheckpointStore store) {
    this.registry = registry;
    this.store = store;
  }

  /** Reports the drift a run meets, once per run on this worker, to {@code metrics}. */
  public AgentDefinitions withMetrics(AgentMetrics metrics) {
    this.metrics = metrics;
    return this;
  }

  public AgentRegistry registry() {
    return registry;
  }

  /**
   * The spec of a starting run: of the definition a forked run continues when the store has it,
   * else of the worker's current definition, which is recorded first.
   *
   * @throws StoreException when the store cannot record or read the definition
   */
  public AgentSpec resolve(RunResolution resolution) {
    if (resolution.fingerprint() != null) {
      AgentDefinition kept =
          recorded(resolution.fingerprint(), resolution.agent(), resolution.runConfig())
              .orElse(null);
      if (kept != null) {
        Agent agent = registry.agent(kept.agent(), kept.runConfig());
        return keyed(AgentRegistry.spec(agent, kept, resolution.fingerprint()), agent, resolution);
      }
    }
    Agent agent = registry.agent(resolution.agent(), resolution.runConfig());
    // A new run sees its agent's providers' tools as they are now, and records them.
    agent.listToolProviders();
    AgentDefinition definition = AgentDefinition.of(agent, resolution.runConfig());
    String fingerprint = definition.fingerprint();
    boolean known;
    synchronized (recorded) {
      // An access-ordered map: even a lookup reorders it, so every access holds the lock.
      known = recorded.containsKey(fingerprint);
    }
    if (!known) {
      // A sub-agent's run uses the definition this one names for it: recorded first.
      recordSubAgents(agent);
      store.saveDefinition(fingerprint, definition.agent(), definition.toJson());
      synchronized (recorded) {
        recorded.put(fingerprint, definition);
      }
    }
    return keyed(AgentRegistry.spec(agent, definition, fingerprint), agent, resolution);
  }

  /** Records the definitions of {@code agent}'s sub-agents (and theirs) this worker has not. */
  private void recordSubAgents(Agent agent) {
    for (SubAgent subAgent : agent.subAgents()) {
      AgentDefinition definition = AgentDefinition.of(subAgent.agent(), null);
      String fingerprint = definition.fingerprint();
      boolean known;
      synchronized (recorded) {
        known = recorded.containsKey(fingerprint);
      }
      if (!known) {
        recordSubAgents(subAgent.agent());
        store.saveDefinition(fingerprint, definition.agent(), definition.toJson());
        synchronized (recorded) {
          recorded.put(fingerprint, definition);
        }
      }
    }
  }

  /**
   * {@code spec} with the concurrency key the agent's default gives the run's trigger, if any.
   * Fails with {@code invalid_input} on a key the session would refuse from a client.
   */
  private static AgentSpec keyed(AgentSpec spec, Agent agent, RunResolution resolution) {
    String key = agent.concurrencyKeyOf(resolution.trigger());
    if (key == null) {
      return spec;
    }
    String problem = SendRules.concurrencyKeyProblem(key);
    if (problem != null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "Agent '" + agent.name() + "' computed a concurrency key it cannot use. " + problem,
          FailureTypes.INVALID_INPUT);
    }
    return spec.withConcurrencyKey(key);
  }

  /**
   * What a turn or call of a run that recorded {@code fingerprint} runs under on this worker.
   * Throws {@code agent_drift} when the definition changed and the agent's policy is {@code error}.
   *
   * @throws StoreException when the definition must be read and the store cannot give it
   */
  public RunDefinition forRun(String sessionId, int run, String agentName, String fingerprint) {
    AgentDefinition kept =
        fingerprint == null ? null : recorded(fingerprint, agentName, null).orElse(null);
    if (kept == null) {
      Agent agent = registry.agent(agentName);
      return new RunDefinition(agent, AgentDefinition.of(agent, null), null);
    }
    Agent agent = registry.agent(kept.agent(), kept.runConfig());
    if (fingerprint.equals(currentFingerprint(agent, kept))) {
      return new RunDefinition(agent, kept, null);
    }
    String drift = DriftReport.between(kept, AgentDefinition.of(agent, kept.runConfig()));
    if (warned.add(sessionId + "#" + run)) {
      metrics.agentDrift(agent.name(), agent.onAgentDrift().name().toLowerCase(Locale.ROOT));
      if (agent.onAgentDrift() == DriftPolicy.WARN) {
        log.warn(
            "{} run {}: agent '{}' changed since the run started ({}); it goes on with its"
                + " recorded definition",
            sessionId,
            run,
            agent.name(),
            drift);
      }
    }
    switch (agent.onAgentDrift()) {
      case ERROR:
        throw ApplicationFailure.newNonRetryableFailure(
            "Agent '"
                + agent.name()
                + "' changed since run "
                + run
                + " of session "
                + sessionId
                + " started ("
                + drift
                + "), and its onAgentDrift policy is error.",
            FailureTypes.AGENT_DRIFT);
      case WARN:
        return new RunDefinition(agent, kept, drift);
      case IGNORE:
      default:
        return new RunDefinition(agent, kept, null);
    }
  }

  /** The worker's agent and the definition a run uses; {@code drift}: what changed (null: none). */
  public record RunDefinition(Agent agent, AgentDefinition definition, String drift) {}

  private String currentFingerprint(Agent agent, AgentDefinition kept) {
    return currentFingerprint(agent, kept.runConfig());
  }

  private String currentFingerprint(Agent agent, JsonNode runConfig) {
    String key = agent.name() + "\n" + (runConfig == null ? "" : runConfig);
    synchronized (currentFingerprints) {
      String cached = currentFingerprints.get(key);
      // A dynamic agent or one with tool providers may have other tools since the last look.
      if (cached != null && !registry.isDynamic(agent.name()) && agent.toolProviders().isEmpty()) {
        return cached;
      }
    }
    String fingerprint = AgentDefinition.of(agent, runConfig).fingerprint();
    synchronized (currentFingerprints) {
      currentFingerprints.put(key, fingerprint);
    }
    return fingerprint;
  }

  /**
   * The definition recorded under {@code fingerprint}: the worker's own definition of static agent
   * {@code agentName} with {@code runConfig} when that is the one (the fingerprint is its hash),
   * else from this worker's cache or the store. Empty when none was recorded under it: a run of
   * 0.1.0 names its definition with a hash of another kind ({@code sha256:}), which no store holds.
   */
  private Optional<AgentDefinition> recorded(
      String fingerprint, String agentName, JsonNode runConfig) {
    if (!fingerprint.startsWith(AgentDefinition.FINGERPRINT_PREFIX)) {
      return Optional.empty();
    }
    Agent own = registry.registered(agentName);
    if (own != null && fingerprint.equals(currentFingerprint(own, runConfig))) {
      return Optional.of(AgentDefinition.of(own, runConfig));
    }
    synchronized (recorded) {
      AgentDefinition cached = recorded.get(fingerprint);
      if (cached != null) {
        return Optional.of(cached);
      }
    }
    Optional<AgentDefinition> definition =
        store.definition(fingerprint).map(AgentDefinition::fromJson);
    definition.ifPresent(
        found -> {
          synchronized (recorded) {
            recorded.put(fingerprint, found);
          }
        });
    return definition;
  }

  private static <V> Map<String, V> lru() {
    return new LinkedHashMap<>(16, 0.75f, true) {
      private static final long serialVersionUID = 1L;

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > CACHED;
      }
    };
  }
}
