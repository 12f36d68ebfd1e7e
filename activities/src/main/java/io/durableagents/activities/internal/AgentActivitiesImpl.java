package io.durableagents.activities.internal;

import io.durableagents.agent.ToolProviderUnavailableException;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.RunResolution;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Supplier;

/**
 * Resolves a run's agent (local activities whose retries have no limit). A store outage fails the
 * attempt with {@code store_unavailable}, retried until the store is back; an unknown agent or a
 * refused configuration fails at once; anything else (a factory that throws) after {@link
 * #ATTEMPTS} attempts, with {@code agent_unavailable}.
 */
public final class AgentActivitiesImpl implements AgentActivities {

  /** Attempts at a resolution that fails for another reason than the store. */
  static final int ATTEMPTS = 5;

  private final AgentDefinitions definitions;
  private final SearchAttributeCheck searchAttributes;

  public AgentActivitiesImpl(AgentDefinitions definitions, SearchAttributeCheck searchAttributes) {
    this.definitions = definitions;
    this.searchAttributes = searchAttributes;
  }

  /** The agent's spec, saying whether its sessions may upsert their search attributes. */
  @Override
  public AgentSpec resolveAgent(String agentName) {
    return resolved(() -> definitions.registry().spec(agentName), null);
  }

  @Override
  public AgentSpec resolveRun(RunResolution resolution) {
    return resolved(() -> definitions.resolve(resolution), resolution.agent());
  }

  private AgentSpec resolved(Supplier<AgentSpec> resolution, String agent) {
    AgentSpec spec;
    try {
      spec = resolution.get();
    } catch (StoreException e) {
      throw StoreFailures.retried(e, Activity.getExecutionContext().getInfo().getWorkflowId());
    } catch (ApplicationFailure e) {
      throw e;
    } catch (RuntimeException e) {
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      if (attempt < ATTEMPTS) {
        throw e;
      }
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          "Cannot resolve agent '"
              + (agent == null ? "(the default agent)" : agent)
              + "' after "
              + attempt
              + " attempts: "
              // A provider's message names the agent and the provider already.
              + (e instanceof ToolProviderUnavailableException ? e.getMessage() : e.toString()),
          FailureTypes.AGENT_UNAVAILABLE,
          e);
    }
    return spec.withSearchAttributes(searchAttributes.upserts());
  }
}
