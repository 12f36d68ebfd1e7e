package io.durableagents.client.internal;

import io.durableagents.client.InvalidInputException;
import io.durableagents.client.SendOptions;
import io.durableagents.client.SessionIds;
import io.durableagents.workflow.Limits;
import io.durableagents.workflow.internal.wire.SendRequest;
import io.durableagents.workflow.internal.wire.SendRules;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.common.v1.Payloads;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.Objects;

/**
 * What a send is checked for before anything is sent: the session's own rules ({@link SendRules},
 * which its send validator applies too) and the request size Temporal takes. Before
 * update-with-start, because Temporal creates the workflow even when the validator then refuses the
 * update.
 */
public final class SendChecks {
  private SendChecks() {}

  /**
   * Checks, with the default data converter, what a send checks before it sends anything: for
   * callers that refuse input before they connect. Empty input passes: it has nothing to check.
   *
   * @throws IllegalArgumentException for an invalid session id
   * @throws InvalidInputException for input the session would refuse
   */
  public static void requireSendable(String sessionId, String input, SendOptions sendOptions) {
    SessionIds.requireValid(sessionId);
    Objects.requireNonNull(sendOptions, "sendOptions");
    SendRequest request = request(new SendRequest(input == null ? "" : input), sendOptions);
    if (!request.isEmpty()) {
      requireSendable(
          request, start(sessionId, sendOptions), DefaultDataConverter.STANDARD_INSTANCE);
    }
  }

  /**
   * The request of a send: {@code request} with the options' run configuration, idempotency key,
   * resume window and concurrency key.
   */
  static SendRequest request(SendRequest request, SendOptions sendOptions) {
    SendRequest configured =
        sendOptions.getRunConfig() == null
            ? request
            : request.withRunConfig(sendOptions.getRunConfig());
    if (sendOptions.getConcurrencyKey() != null) {
      configured = configured.withConcurrencyKey(sendOptions.getConcurrencyKey());
    }
    if (sendOptions.getIdempotencyKey() == null && sendOptions.getResumeWindow() == null) {
      return configured;
    }
    return configured.withResume(
        sendOptions.getIdempotencyKey(),
        sendOptions.getResumeWindow() == null ? null : windowMillis(sendOptions.getResumeWindow()));
  }

  /** A window in milliseconds; one too long to count in them is as good as forever. */
  private static long windowMillis(java.time.Duration window) {
    try {
      return window.toMillis();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The start input of a session that a send with {@code sendOptions} creates. */
  static SessionStart start(String sessionId, SendOptions sendOptions) {
    return new SessionStart(sessionId, sendOptions.getAgent(), sendOptions.getMaxSteps());
  }

  /**
   * Refuses a request the session would refuse, a start it must not take, or a request over {@link
   * Limits#REQUEST_BYTES} serialized with {@code converter}, the start input included.
   *
   * @throws InvalidInputException naming the first problem
   */
  public static void requireSendable(
      SendRequest request, SessionStart start, DataConverter converter) {
    String problem = SendRules.startProblem(start);
    if (problem == null) {
      problem = SendRules.requestProblem(request, SendRules.inputsOf(request));
    }
    if (problem != null) {
      throw new InvalidInputException(problem);
    }
    long bytes;
    try {
      bytes = serializedBytes(converter, request) + serializedBytes(converter, start);
    } catch (DataConverterException e) {
      throw new InvalidInputException(
          "The request cannot be serialized: " + ClientFailures.rootMessage(e), e);
    }
    if (bytes > Limits.REQUEST_BYTES) {
      throw new InvalidInputException(
          "The request is "
              + bytes
              + " bytes serialized, over the limit of "
              + Limits.REQUEST_BYTES
              + " bytes per request (escaped control characters take 6 bytes each); attach large"
              + " content as an artifact instead.");
    }
  }

  private static long serializedBytes(DataConverter converter, Object value) {
    return converter.toPayloads(value).map(Payloads::getSerializedSize).orElse(0);
  }
}
