package io.durableagents.workflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.durableagents.workflow.internal.wire.SessionStart;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the session workflow reads its start input, through the SDK's own JSON converter. */
class SessionStartReaderTest {
  private static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;

  private static SessionStart read(String json) {
    Payload payload =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8(json))
            .build();
    return CONVERTER.fromPayload(payload, SessionStart.class, SessionStart.class);
  }

  @Test
  void aSessionStart_roundTripsUnchanged() {
    SessionStart fork =
        new SessionStart(
            "chat-1.fork-1",
            "concierge",
            7,
            new ForkSource("chat-1", 2, new ForkPatch(null, null, List.of(), "and now?")),
            null,
            500);
    SessionStart plain = new SessionStart("chat-2", null, null);
    SessionStart reset = SessionStart.reset("chat-3", 4);

    for (SessionStart start : List.of(fork, plain, reset)) {
      Payload payload = CONVERTER.toPayload(start).orElseThrow();
      assertThat(CONVERTER.fromPayload(payload, SessionStart.class, SessionStart.class))
          .isEqualTo(start);
    }
    assertThat(read("{\"sessionId\": \"s\", \"maxSteps\": \"3\", \"unknown\": [1]}"))
        .isEqualTo(new SessionStart("s", null, 3));
  }

  @Test
  void aStartThatDoesNotBind_readsAsTheEmptyStart() {
    for (String json :
        List.of(
            "{\"sessionId\": {\"x\": 1}}",
            "{\"maxSteps\": \"lots\"}",
            "{\"fork\": \"x\"}",
            "[1, 2]",
            "\"text\"",
            "42",
            "{\"agent\": [\"a\"], \"sessionId\": \"s\"}")) {
      assertThat(read(json)).as(json).isEqualTo(new SessionStart(null, null, null));
    }
  }

  @Test
  void aContinuedSessionsStart_isNeverReplaced() {
    assertThatThrownBy(() -> read("{\"sessionId\": \"s\", \"continued\": \"not a snapshot\"}"))
        .isInstanceOf(DataConverterException.class);
  }
}
