package io.durableagents.workflow.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.durableagents.conversation.Message;
import io.durableagents.workflow.TriggerEnvelope;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SendRules;
import java.util.ArrayList;
import java.util.List;

/**
 * Input that has arrived and not reached the transcript yet: messages queued for the next run (with
 * the trigger envelope that sent them) and messages interjected into the active run, which are
 * placed after its current tool batch's results. A send repeated by a retrying client is recognised
 * and kept once.
 */
final class Inbox {
  /**
   * A cancel that came after inputs were accepted but before their run started (null: none): the
   * run starts cancelled, so their sender is answered as for any cancelled run.
   */
  private String cancelBeforeRun;

  /** Sends whose handlers wait to take their input (while the session restores, say). */
  private int arriving;

  private final List<Message> queued = new ArrayList<>();

  /** The trigger envelope of the queued inputs, for the tools of the run they start. */
  private TriggerEnvelope queuedTrigger;

  /** The run configuration the queued inputs were sent with (the first send's that had one). */
  private JsonNode queuedRunConfig;

  private String queuedConcurrencyKey;

  /** The idempotency key the queued inputs were sent with (the first send's that had one). */
  private String queuedIdempotencyKey;

  private final List<Message> interjections = new ArrayList<>();

  /** The new messages of a request: a re-sent stored conversation is recognised and dropped. */
  static List<Message> newInputs(SendRequest request, Transcript transcript) {
    List<Message> inputs = SendRules.inputsOf(request);
    if (transcript.isPrefixOf(request.messages())) {
      // The request's messages come first: drop the stored conversation they start with.
      return inputs.subList(transcript.size(), inputs.size());
    }
    return inputs;
  }

  boolean hasQueued() {
    return !queued.isEmpty();
  }

  /**
   * Queues inputs for the next run, with the run configuration and idempotency key they were sent
   * with (null: none); one already queued is a retry and kept once.
   */
  void queue(List<Message> inputs, JsonNode runConfig, String idempotencyKey) {
    if (queuedRunConfig == null && runConfig != null && runConfig.isObject()) {
      queuedRunConfig = runConfig;
    }
    if (queuedIdempotencyKey == null) {
      queuedIdempotencyKey = idempotencyKey;
    }
    for (Message input : inputs) {
      if (!queued.contains(input)) {
        queued.add(input);
      }
    }
  }

  /** The concurrency key of the queued inputs' run (null: none); the first one sent is kept. */
  void queueConcurrencyKey(String key) {
    if (queuedConcurrencyKey == null) {
      queuedConcurrencyKey = key;
    }
  }

  /** The concurrency key of the inputs about to be taken (null: none); cleared. */
  String takeConcurrencyKey() {
    String key = queuedConcurrencyKey;
    queuedConcurrencyKey = null;
    return key;
  }

  String queuedConcurrencyKey() {
    return queuedConcurrencyKey;
  }

  void queueTrigger(TriggerEnvelope trigger) {
    queuedTrigger = trigger;
  }

  /** The queued inputs, for the run they start; the queue is empty afterwards. */
  List<Message> takeQueued() {
    List<Message> inputs = new ArrayList<>(queued);
    queued.clear();
    return inputs;
  }

  /** The run configuration of the inputs about to be taken (null: none); cleared. */
  JsonNode takeRunConfig() {
    JsonNode config = queuedRunConfig;
    queuedRunConfig = null;
    return config;
  }

  JsonNode queuedRunConfig() {
    return queuedRunConfig;
  }

  /** The idempotency key of the inputs about to be taken (null: none); cleared. */
  String takeIdempotencyKey() {
    String key = queuedIdempotencyKey;
    queuedIdempotencyKey = null;
    return key;
  }

  String queuedIdempotencyKey() {
    return queuedIdempotencyKey;
  }

  /** The trigger envelope of the inputs just taken, if a trigger sent them. */
  TriggerEnvelope takeTrigger() {
    TriggerEnvelope trigger = queuedTrigger;
    queuedTrigger = null;
    return trigger;
  }

  /**
   * Adds an input to the active run unless it repeats the run's {@code startInput} or an
   * interjection already kept; answers whether it was added.
   */
  boolean interject(Message input, Message startInput) {
    if (input.equals(startInput) || interjections.contains(input)) {
      return false;
    }
    interjections.add(input);
    return true;
  }

  boolean hasInterjections() {
    return !interjections.isEmpty();
  }

  /** Appends the interjections to the transcript, in arrival order. */
  void moveInterjectionsTo(Transcript transcript) {
    interjections.forEach(transcript::add);
    interjections.clear();
  }

  List<Message> queuedCopy() {
    return new ArrayList<>(queued);
  }

  List<Message> interjectionsCopy() {
    return new ArrayList<>(interjections);
  }

  /** What continue-as-new carried over. */
  void restore(
      List<Message> queuedInputs,
      JsonNode runConfig,
      String idempotencyKey,
      List<Message> runInterjections) {
    queued.addAll(queuedInputs);
    queuedRunConfig = runConfig;
    queuedIdempotencyKey = idempotencyKey;
    interjections.addAll(runInterjections);
  }

  /** The run of the accepted inputs is to start cancelled, for {@code reason}. */
  void cancelBeforeRun(String reason) {
    cancelBeforeRun = reason;
  }

  /** The cancel that came before the run, taken once (null: none). */
  String takeCancelBeforeRun() {
    String reason = cancelBeforeRun;
    cancelBeforeRun = null;
    return reason;
  }

  /** A send arrived: its input is taken once the session can take it. */
  void sendArriving() {
    arriving++;
  }

  /**
   * A send's input was taken. A cancel that came before it is dropped when no run is to start from
   * what was sent ({@code runToStart} false: nothing queued, no resume).
   */
  void sendTaken(boolean runToStart) {
    arriving--;
    if (arriving == 0 && !runToStart && !hasQueued()) {
      cancelBeforeRun = null;
    }
  }

  /** Whether accepted inputs wait for a run that has not started: queued, or not yet taken. */
  boolean awaitsRun() {
    return arriving > 0 || hasQueued();
  }
}
