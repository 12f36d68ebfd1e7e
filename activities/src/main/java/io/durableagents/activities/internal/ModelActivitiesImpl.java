package io.durableagents.activities.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.durableagents.activities.internal.AgentDefinitions.RunDefinition;
import io.durableagents.agent.Agent;
import io.durableagents.artifacts.ArtifactNotFoundException;
import io.durableagents.artifacts.ArtifactStore;
import io.durableagents.artifacts.FileArtifactStore;
import io.durableagents.conversation.Attachment;
import io.durableagents.conversation.Message;
import io.durableagents.conversation.Role;
import io.durableagents.conversation.ToolCall;
import io.durableagents.metrics.AgentMetrics;
import io.durableagents.model.AttachmentContent;
import io.durableagents.model.ModelException;
import io.durableagents.model.ModelProvider;
import io.durableagents.model.ModelRequest;
import io.durableagents.model.ModelResponse;
import io.durableagents.model.ModelStream;
import io.durableagents.model.ToolDefinition;
import io.durableagents.store.StoreException;
import io.durableagents.store.internal.CheckpointStore;
import io.durableagents.streaming.DeltaListener;
import io.durableagents.streaming.internal.DeltaForwardingStream;
import io.durableagents.tracing.AgentTracer;
import io.durableagents.tracing.ModelTurnTrace;
import io.durableagents.workflow.FailureTypes;
import io.durableagents.workflow.internal.activity.CallCheck;
import io.durableagents.workflow.internal.activity.ContextCompaction;
import io.durableagents.workflow.internal.activity.ModelActivities;
import io.durableagents.workflow.internal.activity.ModelFailureDetails;
import io.durableagents.workflow.internal.activity.ModelTurnRequest;
import io.durableagents.workflow.internal.activity.ModelTurnResult;
import io.durableagents.workflow.internal.activity.TurnSaves;
import io.durableagents.workflow.internal.wire.CheckpointSave;
import io.durableagents.workflow.internal.wire.StoredResults;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one model turn: reads the transcript from the store by reference, calls the provider and
 * returns only the new answer, so history grows with new content only. The provider's text and
 * reasoning deltas go to the worker's {@link DeltaListener}s as they arrive (never stored); each
 * one heartbeats, and once a heartbeat reports a cancel no delta is forwarded any more and the
 * provider call is stopped.
 */
public final class ModelActivitiesImpl implements ModelActivities {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final AgentDefinitions definitions;
  private final CheckpointStore store;
  private final int maxPayloadBytes;
  private final List<DeltaListener> deltaListeners;

  /** Refusals for length a turn recovers from by compacting before it fails. */
  static final int LENGTH_REFUSALS = 3;

  private static final Logger log = LoggerFactory.getLogger(ModelActivitiesImpl.class);

  private TranscriptCache transcripts = new TranscriptCache();
  private final ContextCalibration calibration = new ContextCalibration();
  private final MessageEstimates estimates = new MessageEstimates();
  private AgentMetrics metrics = AgentMetrics.NONE;
  private AgentTracer tracer = AgentTracer.NONE;
  private MeteredSaves saves;
  private ArtifactStore artifacts = FileArtifactStore.defaultStore();

  public ModelActivitiesImpl(
      AgentDefinitions definitions,
      CheckpointStore store,
      int maxPayloadBytes,
      List<DeltaListener> deltaListeners) {
    this.definitions = definitions;
    this.store = store;
    this.maxPayloadBytes = maxPayloadBytes;
    this.deltaListeners = List.copyOf(deltaListeners);
    this.saves = new MeteredSaves(store, metrics);
  }

  /** Reports the turns, the saves they write and the transcript cache to {@code metrics}. */
  public ModelActivitiesImpl withMetrics(AgentMetrics metrics) {
    this.metrics = metrics;
    this.saves = new MeteredSaves(store, metrics);
    return this;
  }

  /** Opens a span around each provider call with {@code tracer}. */
  public ModelActivitiesImpl withTracer(AgentTracer tracer) {
    this.tracer = tracer;
    return this;
  }

  /** Shares {@code cache} with the worker's fork preparations (see {@link ForkActivitiesImpl}). */
  public ModelActivitiesImpl withTranscripts(TranscriptCache cache) {
    this.transcripts = cache;
    return this;
  }

  @Override
  public ModelTurnResult modelTurn(ModelTurnRequest request) {
    RunDefinition run;
    List<Message> messages;
    try {
      // Checked before anything is written: a run refused for drift saves nothing of this turn.
      run =
          definitions.forRun(
              request.sessionId(), request.run(), request.agent(), request.fingerprint());
      messages = new ArrayList<>(transcript(request));
    } catch (StoreException e) {
      throw StoreFailures.waitedOut(e, request.sessionId());
    }
    Agent agent = run.agent();
    AgentDefinition definition = run.definition();
    messages.addAll(request.newMessages());
    List<ToolDefinition> tools = new ArrayList<>();
    for (AgentDefinition.ToolDeclaration tool : definition.tools()) {
      tools.add(new ToolDefinition(tool.name(), tool.description(), tool.schema()));
    }
    ModelRequest.Builder modelRequest =
        ModelRequest.newBuilder()
            .setSessionId(request.sessionId())
            .setAgent(agent.name())
            .setModel(definition.model())
            .setInstructions(definition.instructions())
            .setTools(tools)
            .setStep(request.step());
    ActivityExecutionContext context = Activity.getExecutionContext();
    long startedAt = System.currentTimeMillis();
    long started = System.nanoTime();
    try {
      Sent sent =
          sendWithin(
              request.sessionId(),
              ContextDefinition.budget(definition.context(), definition.model()),
              TokenEstimate.fixed(definition.instructions(), tools),
              withStoredResults(messages),
              modelRequest,
              definitions.registry().provider(agent),
              DeltaForwardingStream.forActivity(
                  context, request.sessionId(), request.step(), deltaListeners));
      ModelResponse response = sent.response();
      metrics.modelTurn(
          agent.name(),
          definition.model(),
          Duration.ofNanos(System.nanoTime() - started),
          response.usage().inputTokens(),
          response.usage().outputTokens(),
          null);
      List<CallCheck> checks = CallChecks.check(run, response.toolCalls());
      reportRefusedCalls(agent.name(), response.toolCalls(), checks);
      ModelTurnResult result =
          new ModelTurnResult(
                  response.text(),
                  response.toolCalls(),
                  response.finishReason(),
                  response.usage(),
                  checks)
              .withTimes(startedAt, System.currentTimeMillis())
              .withCompaction(sent.compaction());
      if (run.drift() != null) {
        result = result.withDrift(run.drift());
      }
      if (agent.outputSchema() != null && response.toolCalls().isEmpty()) {
        try {
          result = result.withOutput(agent.parseOutput(response.text()), null);
        } catch (IllegalArgumentException invalid) {
          result = result.withOutput(null, invalid.getMessage());
        }
      }
      int size = PayloadSizes.jsonBytes(result);
      if (size > maxPayloadBytes) {
        throw ApplicationFailure.newNonRetryableFailure(
            "The model's answer is "
                + size
                + " bytes of JSON, over the limit of "
                + maxPayloadBytes
                + " bytes (AgentsPluginOptions.Builder.setMaxPayloadBytes).",
            FailureTypes.PAYLOAD_TOO_LARGE);
      }
      return result;
    } catch (ModelException e) {
      metrics.modelTurn(
          agent.name(),
          definition.model(),
          Duration.ofNanos(System.nanoTime() - started),
          0,
          0,
          e.code());
      ApplicationFailure.Builder failure =
          ApplicationFailure.newBuilder()
              .setType(e.code())
              .setMessage(e.getMessage())
              .setNonRetryable(!e.retryable())
              // The failed step keeps what the model streamed, and when the call ran.
              .setDetails(
                  new ModelFailureDetails(e.partialText(), startedAt, System.currentTimeMillis()));
      if (e.retryAfter() != null) {
        failure.setNextRetryDelay(e.retryAfter());
      }
      throw failure.build();
    }
  }

  /** A provider's answer and the compaction of the view it answered, if this turn made one. */
  private record Sent(ModelResponse response, ContextCompaction compaction) {}

  /**
   * Sends the model's view of {@code conversation} ({@link ModelView}): a refusal for length
   * ({@code context_exceeded}) makes the session's budget smaller than what was refused ({@link
   * ContextCalibration}) and sends the smaller view, up to {@value #LENGTH_REFUSALS} times, while
   * the view can shrink; the provider's report of the input tokens corrects the next estimates.
   */
  private Sent sendWithin(
      String sessionId,
      ContextBudget budget,
      long fixedTokens,
      List<Message> conversation,
      ModelRequest.Builder request,
      ModelProvider provider,
      ModelStream stream) {
    ContextCalibration.Correction correction = calibration.of(sessionId);
    String reason = ContextCompaction.THRESHOLD;
    long refusedTokens = Long.MAX_VALUE;
    ModelException lengthRefusal = null;
    for (int refusals = 0; ; refusals++) {
      ModelView.View view =
          ModelView.of(
              conversation,
              fixedTokens,
              budget,
              correction.inputBudget(budget.inputBudget()),
              correction.scale(),
              estimates);
      if (lengthRefusal != null && view.tokens() >= refusedTokens) {
        // Nothing more can be left out (the run's own input, the latest turn): it cannot fit.
        throw lengthRefusal;
      }
      request
          .setMessages(view.messages())
          .setLeftOutTurns(view.leftOutTurns())
          .setAttachments(attachments(view.messages()));
      try {
        ModelResponse response = generate(provider, request.build(), stream);
        calibration.reported(sessionId, correction, view.tokens(), response.usage().inputTokens());
        ContextCompaction compaction = view.compaction(reason);
        if (compaction == null && refusals > 0) {
          // The refusal made the view smaller than the threshold alone would have.
          compaction =
              new ContextCompaction(
                  "recalibrated",
                  view.clearedResults(),
                  view.leftOutMessages(),
                  view.wholeTokens(),
                  view.tokens(),
                  reason);
        }
        return new Sent(response, compaction);
      } catch (ModelException e) {
        if (!FailureTypes.CONTEXT_EXCEEDED.equals(e.code())
            || refusals >= LENGTH_REFUSALS
            || budget.policies().isEmpty()) {
          throw e;
        }
        log.info(
            "{}: the provider refused a request of about {} tokens for length; compacting and"
                + " sending again",
            sessionId,
            view.tokens());
        correction = calibration.refused(sessionId, correction, view.tokens());
        refusedTokens = view.tokens();
        lengthRefusal = e;
        reason = ContextCompaction.CONTEXT_EXCEEDED;
      }
    }
  }

  /** The provider's checked answer, traced: the span covers the call and the answer's checks. */
  private ModelResponse generate(ModelProvider provider, ModelRequest request, ModelStream stream) {
    ModelTurnTrace trace = tracer.modelTurn(provider, request);
    ModelResponse response;
    try {
      response = ModelAnswers.checked(provider.generate(request, stream), request.step());
    } catch (ModelException e) {
      trace.failed(e.code(), e.getMessage());
      throw e;
    } catch (RuntimeException | Error e) {
      // Ended whatever the failure: the trace's span may be current on this pooled thread.
      trace.failed(Failures.type(e), e.getMessage());
      throw e;
    }
    trace.answered(response);
    return response;
  }

  /**
   * Calls the checks refused (an unknown tool, invalid arguments) never reach a tool activity: they
   * are reported here, with their error code and no time.
   */
  private void reportRefusedCalls(String agent, List<ToolCall> calls, List<CallCheck> checks) {
    for (int i = 0; i < calls.size() && i < checks.size(); i++) {
      JsonNode error = checks.get(i).error();
      if (error != null) {
        metrics.toolCall(agent, calls.get(i).name(), Duration.ZERO, error.path("error").asText());
      }
    }
  }

  /**
   * Writes the saves folded into this turn, then reads the transcript (from this worker's cache
   * when it holds exactly the stored transcript). An unreachable store fails the attempt with
   * {@code store_unavailable}, which the workflow waits out (durable timers, without limit) instead
   * of spending the model's bounded retries; missing transcript rows are a permanent {@code
   * store_inconsistent} ({@link StoreFailures#waitedOut}). A turn that holds its saves writes
   * nothing and needs the cache: without it, it fails with {@code held_saves_unknown}; so does a
   * turn that writes the held saves on a worker that does not hold exactly those. Once everything
   * is written, a turn reads the store where the cache cannot continue the transcript.
   */
  private List<Message> transcript(ModelTurnRequest request) {
    List<CheckpointSave> saves = request.foldedSaves();
    if (request.saves().holds()) {
      return transcripts.storedTranscript(
          request,
          () -> {
            throw heldSavesUnknown(request);
          });
    }
    if (request.saves() instanceof TurnSaves.WriteHeld) {
      // The entries this worker held, then the new ones: one transaction, nothing restated.
      List<CheckpointSave> held = transcripts.heldSaves(request);
      if (held == null) {
        throw heldSavesUnknown(request);
      }
      List<CheckpointSave> all = new ArrayList<>(held);
      all.addAll(saves);
      saves = all;
    }
    if (!saves.isEmpty()) {
      this.saves.save(saves);
    }
    boolean[] read = {false};
    List<Message> transcript =
        transcripts.storedTranscript(
            request,
            () -> {
              read[0] = true;
              return store.readMessages(request.sessionId(), request.storedMessages());
            });
    metrics.transcriptCache(!read[0]);
    return transcript;
  }

  private static ApplicationFailure heldSavesUnknown(ModelTurnRequest request) {
    return ApplicationFailure.newNonRetryableFailure(
        "This worker does not hold the transcript of session "
            + request.sessionId()
            + " that the turn's held saves continue; the workflow writes them and sends the turn again.",
        FailureTypes.HELD_SAVES_UNKNOWN);
  }

  /** Uses {@code store} for attachment bytes (the plugin's artifact store). */
  public ModelActivitiesImpl withArtifacts(ArtifactStore store) {
    this.artifacts = store;
    return this;
  }

  /**
   * The messages with every stored tool result read back in place of its reference (for this call
   * only: the transcript keeps the references).
   */
  private List<Message> withStoredResults(List<Message> messages) {
    List<Message> resolved = null;
    for (int i = 0; i < messages.size(); i++) {
      Message message = messages.get(i);
      if (message.role() != Role.TOOL || !StoredResults.isReference(message.result())) {
        continue;
      }
      String artifactId = StoredResults.artifactId(message.result());
      JsonNode result;
      try {
        result = JSON.readTree(artifacts.read(artifactId));
      } catch (ArtifactNotFoundException e) {
        throw ApplicationFailure.newNonRetryableFailureWithCause(
            "The stored result of tool call "
                + message.toolCallId()
                + " is gone: "
                + e.getMessage(),
            FailureTypes.ARTIFACT_NOT_FOUND,
            e);
      } catch (java.io.IOException e) {
        throw ApplicationFailure.newFailureWithCause(
            "Cannot read the stored result of tool call "
                + message.toolCallId()
                + ": "
                + e.getMessage(),
            FailureTypes.STORED_RESULT_UNREADABLE,
            e);
      }
      if (resolved == null) {
        resolved = new ArrayList<>(messages);
      }
      resolved.set(i, message.withResult(result));
    }
    return resolved == null ? messages : resolved;
  }

  /** The bytes of every attachment in the conversation, read for this call only. */
  private Map<String, AttachmentContent> attachments(List<Message> messages) {
    Map<String, AttachmentContent> contents = new LinkedHashMap<>();
    for (Message message : messages) {
      for (Attachment attachment : message.attachments()) {
        if (contents.containsKey(attachment.artifactId())) {
          continue;
        }
        try {
          contents.put(
              attachment.artifactId(),
              new AttachmentContent(
                  attachment.artifactId(),
                  attachment.name(),
                  attachment.mediaType(),
                  artifacts.read(attachment.artifactId())));
        } catch (ArtifactNotFoundException e) {
          throw ApplicationFailure.newNonRetryableFailureWithCause(
              e.getMessage(), FailureTypes.ARTIFACT_NOT_FOUND, e);
        }
      }
    }
    return contents;
  }
}
