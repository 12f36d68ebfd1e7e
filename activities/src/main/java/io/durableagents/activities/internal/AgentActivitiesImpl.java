package io.durableagents.activities.internal;

import io.durableagents.agent.ToolProviderUnavailableException;
import io.durableagents.store.StoreException;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.AgentActivities;
import io.durableagents.workflow.internal.activity.AgentSpec;
import io.durableagents.workflow.internal.activity.RunResolution;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationErrorCategory;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves a run's agent (local activities whose retries have no limit). A store outage fails the
 * attempt with {@code store_unavailable}, retried until the store is back; an unknown agent or a
 * refused configuration fails at once; anything else (a factory that throws) after {@link
 * #ATTEMPTS} attempts, with {@code agent_unavailable}.
 *
 * <p>A tool provider that cannot list its tools (an MCP server that cannot be started or reached)
 * is an outage of something else, not a bug of the worker: each attempt logs one line that names
 * the agent, the provider and the reason, and fails as a benign failure, which the Temporal SDK
 * logs without a stack trace (at debug).
 */
public final class AgentActivitiesImpl implements AgentActivities {
  private static final Logger log = LoggerFactory.getLogger(AgentActivitiesImpl.class);

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
    } catch (ToolProviderUnavailableException e) {
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      // The message names the agent and the provider already.
      log.warn("{} (run start, attempt {} of {})", e.getMessage(), attempt, ATTEMPTS);
      ApplicationFailure.Builder failure =
          ApplicationFailure.newBuilder()
              .setType(FailureTypes.AGENT_UNAVAILABLE)
              .setCategory(ApplicationErrorCategory.BENIGN);
      if (attempt < ATTEMPTS) {
        throw failure.setMessage(e.getMessage()).build();
      }
      throw failure
          .setMessage(unresolved(agent, attempt) + e.getMessage())
          .setNonRetryable(true)
          .build();
    } catch (RuntimeException e) {
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      if (attempt < ATTEMPTS) {
        throw e;
      }
      throw ApplicationFailure.newNonRetryableFailureWithCause(
          unresolved(agent, attempt) + e, FailureTypes.AGENT_UNAVAILABLE, e);
    }
    return spec.withSearchAttributes(searchAttributes.upserts());
  }

  private static String unresolved(String agent, int attempt) {
    return "Cannot resolve agent '"
        + (agent == null ? "(the default agent)" : agent)
        + "' after "
        + attempt
        + " attempts: ";
  }
}
