package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.activities.internal.AgentDefinitions.RunDefinition;
import io.durableagents.agent.Agent;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.conversation.Usage;
import io.durableagents.projection.internal.StoredEntry;
import io.durableagents.projection.internal.StoredSession;
import io.durableagents.session.RunStatus;
import io.durableagents.store.StoreException;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.ForkPatch;
import io.durableagents.workflow.ForkSource;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.ForkActivities;
import io.durableagents.workflow.internal.activity.ForkRequest;
import io.durableagents.workflow.internal.activity.ForkState;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.TranscriptHash;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Copies a kept history entry, patched, into a forked session's transcript. The copy is one store
 * write: fork latency depends on the store, not on the length of the source's Temporal history.
 */
public final class ForkActivitiesImpl implements ForkActivities {
  private final AgentDefinitions definitions;
  private final CheckpointStore store;
  private final SearchAttributeCheck searchAttributes;
  private TranscriptCache transcripts;

  public ForkActivitiesImpl(
      AgentDefinitions definitions, CheckpointStore store, SearchAttributeCheck searchAttributes) {
    this.definitions = definitions;
    this.store = store;
    this.searchAttributes = searchAttributes;
  }

  /**
   * Hands the transcript each fork starts with to {@code cache}, shared with the worker's model
   * turns, so that the fork's first turn does not read back what was just written.
   */
  public ForkActivitiesImpl withTranscripts(TranscriptCache cache) {
    this.transcripts = cache;
    return this;
  }

  /**
   * Prepares the fork; a store outage fails the attempt with {@code store_unavailable}, retried
   * until the store is back (the fork's retries have no limit), and missing rows of the source
   * refuse it with {@code store_inconsistent}.
   */
  @Override
  public ForkState prepareFork(ForkRequest request) {
    try {
      return prepare(request);
    } catch (StoreException e) {
      throw StoreFailures.retried(e, request.source().parentSessionId());
    }
  }

  private ForkState prepare(ForkRequest request) {
    ForkSource source = request.source();
    List<StoredEntry> kept = store.history(source.parentSessionId(), 0);
    StoredEntry entry =
        kept.stream().filter(e -> e.step() == source.parentStep()).findFirst().orElse(null);
    if (entry == null) {
      throw checkpointNotFound(source, kept);
    }
    StoredSession parent = store.session(source.parentSessionId()).orElse(null);
    String agentName =
        request.agent() != null ? request.agent() : parent == null ? null : parent.agent();
    Agent agent = definitions.registry().agent(agentName, entry.runConfig());
    RunDefinition run = runDefinition(request, agent, entry);
    List<Message> entryMessages =
        entryTranscript(source.parentSessionId(), parent, entry.messageCount());
    List<Message> messages = new ArrayList<>(entryMessages);
    ForkPatch patch = source.patch() == null ? ForkPatch.NONE : source.patch();
    // The checks the client made: a fork started another way is refused here, before any write.
    String problem = patch.problem() != null ? patch.problem() : patch.problemWith(entryMessages);
    if (problem != null) {
      throw ApplicationFailure.newNonRetryableFailure(problem, FailureTypes.INVALID_PATCH);
    }
    if (!patch.messages().isEmpty()) {
      messages = new ArrayList<>(patch.messages());
    }
    JsonNode businessState = patchedState(entry.businessState(), patch.businessState());
    for (ForkPatch.ToolResultPatch toolResult : patch.toolResults()) {
      applyToolResult(messages, toolResult);
    }
    List<ToolCall> pending = pendingCalls(messages);
    List<CallCheck> checks = new ArrayList<>();
    for (ToolCall call : pending) {
      checks.add(CallChecks.check(run, call));
    }
    boolean awaitsModel =
        pending.isEmpty() && !RunStatus.settled(entry.status()) && endsUnanswered(messages);
    RunStatus status = pending.isEmpty() && !awaitsModel ? entry.status() : RunStatus.IN_PROGRESS;
    // The part the patch left alone is copied inside the store; only the rest is written anew.
    int copied = unchangedPrefix(entryMessages, messages);
    String transcriptHash =
        copied == messages.size()
                && copied == entryMessages.size()
                && entry.transcriptHash() != null
            ? entry.transcriptHash()
            : TranscriptHash.of(messages);
    store.saveFork(
        source.parentSessionId(),
        copied,
        new CheckpointSave(
            request.sessionId(),
            request.executionId(),
            agent.name(),
            entry.run(),
            entry.step(),
            status,
            entry.finishReason(),
            copied,
            messages.subList(copied, messages.size()),
            entry.usage(),
            entry.fingerprint(),
            request.savedAt(),
            List.of(),
            businessState,
            transcriptHash,
            new CheckpointSave.RunInfo(
                stepsUsed(entry, messages), runUsage(entry), entry.runConfig(), null)));
    store.recordLineage(
        request.sessionId(),
        request.executionId(),
        source.parentSessionId(),
        source.parentStep(),
        patch.summary());
    if (transcripts != null) {
      transcripts.remember(request.sessionId(), request.executionId(), messages);
    }
    return new ForkState(
        agent.name(),
        entry.run(),
        stepsUsed(entry, messages),
        entry.step(),
        messages.size(),
        entry.usage(),
        entry.status(),
        entry.finishReason(),
        lastAssistantText(messages),
        pending,
        checks,
        transcriptHash,
        businessState,
        searchAttributes.upserts(),
        awaitsModel,
        runUsage(entry),
        entry.fingerprint(),
        entry.runConfig(),
        false);
  }

  /**
   * The definition the entry's run recorded, which the checks of the calls without a result use.
   * Under a drift policy of {@code error} the fork is still made: its run fails with {@code
   * agent_drift} when it resumes, like the source's would, and its entry can be forked again.
   */
  private RunDefinition runDefinition(ForkRequest request, Agent agent, StoredEntry entry) {
    try {
      return definitions.forRun(
          request.sessionId(), entry.run(), agent.name(), entry.fingerprint());
    } catch (ApplicationFailure refused) {
      if (!FailureTypes.AGENT_DRIFT.equals(refused.getType())) {
        throw refused;
      }
      return new RunDefinition(agent, AgentDefinition.of(agent, entry.runConfig()), null);
    }
  }

  /**
   * Model turns the entry's run had taken, as the entry recorded them; entries of older versions
   * did not, and count the turns since the last user message.
   */
  private static int stepsUsed(StoredEntry entry, List<Message> messages) {
    return entry.runSteps() != null ? entry.runSteps() : modelTurnsOfLastRun(messages);
  }

  private static Usage runUsage(StoredEntry entry) {
    return entry.runUsage() != null ? entry.runUsage() : Usage.ZERO;
  }

  /** The transcript ends with what the model has not answered: tool results, or a user message. */
  static boolean endsUnanswered(List<Message> messages) {
    if (messages.isEmpty()) {
      return false;
    }
    Role role = messages.get(messages.size() - 1).role();
    return role == Role.TOOL || role == Role.USER;
  }

  /**
   * The first {@code count} messages of the parent's transcript: what this worker still remembers
   * of it (the parent's own execution, as the store names it), and the rest from the store.
   */
  private List<Message> entryTranscript(String parentSessionId, StoredSession parent, int count) {
    List<Message> remembered =
        transcripts == null || parent == null
            ? List.of()
            : transcripts.prefix(parentSessionId, parent.executionId(), count);
    if (remembered.isEmpty()) {
      return store.readMessages(parentSessionId, count);
    }
    if (remembered.size() == count) {
      return remembered;
    }
    List<Message> messages = new ArrayList<>(remembered);
    messages.addAll(store.readMessages(parentSessionId, remembered.size(), count));
    return messages;
  }

  /** How many leading messages {@code patched} shares with {@code original}. */
  static int unchangedPrefix(List<Message> original, List<Message> patched) {
    int limit = Math.min(original.size(), patched.size());
    int i = 0;
    while (i < limit && Objects.equals(original.get(i), patched.get(i))) {
      i++;
    }
    return i;
  }

  /**
   * The fork's business state: the entry's, or the patch's, which replaces it whole. A JSON null
   * patch clears it; anything else must be an object, as tools update it with merge patches.
   */
  static JsonNode patchedState(JsonNode entryState, JsonNode patch) {
    if (patch == null) {
      return entryState;
    }
    String problem = new ForkPatch(null, patch, null, null).problem();
    if (problem != null) {
      throw ApplicationFailure.newNonRetryableFailure(problem, FailureTypes.INVALID_PATCH);
    }
    return patch.isNull() ? null : patch;
  }

  private static ApplicationFailure checkpointNotFound(ForkSource source, List<StoredEntry> kept) {
    String steps =
        kept.stream()
            .map(StoredEntry::step)
            .sorted()
            .map(String::valueOf)
            .collect(Collectors.joining(", "));
    return ApplicationFailure.newNonRetryableFailure(
        "Session '"
            + source.parentSessionId()
            + "' has no kept history entry at step "
            + source.parentStep()
            + "; kept steps: "
            + (steps.isEmpty() ? "none" : steps)
            + ".",
        FailureTypes.CHECKPOINT_NOT_FOUND);
  }

  /** Replaces a call's result in place, or records it right after the call's other results. */
  static void applyToolResult(List<Message> messages, ForkPatch.ToolResultPatch patch) {
    for (int i = 0; i < messages.size(); i++) {
      Message message = messages.get(i);
      if (message.role() == Role.TOOL && patch.toolCallId().equals(message.toolCallId())) {
        messages.set(
            i,
            new Message(
                Role.TOOL, null, null, message.toolCallId(), message.toolName(), patch.result()));
        return;
      }
    }
    for (int i = 0; i < messages.size(); i++) {
      for (ToolCall call : messages.get(i).toolCalls()) {
        if (patch.toolCallId().equals(call.id())) {
          int at = i + 1;
          while (at < messages.size() && messages.get(at).role() == Role.TOOL) {
            at++;
          }
          messages.add(at, Message.toolResult(call, patch.result()));
          return;
        }
      }
    }
    throw ApplicationFailure.newNonRetryableFailure(
        ForkPatch.unknownCall(patch.toolCallId()), FailureTypes.INVALID_PATCH);
  }

  /** Calls of the last tool-calling assistant message that have no result yet, in call order. */
  static List<ToolCall> pendingCalls(List<Message> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      Message message = messages.get(i);
      if (message.role() == Role.ASSISTANT && !message.toolCalls().isEmpty()) {
        Set<String> answered = new HashSet<>();
        for (int j = i + 1; j < messages.size(); j++) {
          if (messages.get(j).role() == Role.TOOL) {
            answered.add(messages.get(j).toolCallId());
          }
        }
        List<ToolCall> pending = new ArrayList<>();
        for (ToolCall call : message.toolCalls()) {
          if (!answered.contains(call.id())) {
            pending.add(call);
          }
        }
        return pending;
      }
      if (message.role() == Role.ASSISTANT) {
        return List.of();
      }
    }
    return List.of();
  }

  /** Model turns since the last user message: the steps the entry's run already used. */
  static int modelTurnsOfLastRun(List<Message> messages) {
    int turns = 0;
    for (int i = messages.size() - 1; i >= 0 && messages.get(i).role() != Role.USER; i--) {
      if (messages.get(i).role() == Role.ASSISTANT) {
        turns++;
      }
    }
    return turns;
  }

  private static String lastAssistantText(List<Message> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      if (messages.get(i).role() == Role.ASSISTANT) {
        return messages.get(i).text();
      }
    }
    return null;
  }
}
