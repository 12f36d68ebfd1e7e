package io.durableagents.model.openai;

/**
 * Chat Completions streams as they travel on the wire (OpenAI API reference, "The chat completion
 * chunk object" and "Streaming"), byte for byte: one {@code data:} line per chunk, a blank line
 * after each, {@code usage: null} on every chunk but the last (with {@code
 * stream_options.include_usage}), whose {@code choices} is empty, then {@code data: [DONE]}.
 */
public final class Wire {
  private Wire() {}

  /** A plain answer "Hello there!" in three text deltas, with usage. */
  public static final String PLAIN_ANSWER =
      """
      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":" there"},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

      data: {"id":"chatcmpl-B1","object":"chat.completion.chunk","created":1735689600,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":19,"completion_tokens":3,"total_tokens":22,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

      data: [DONE]

      """;

  /**
   * Text, then two tool calls: {@code add} (index 0) whose arguments {"a":1,"b":2} arrive in three
   * fragments, and {@code echo} (index 1) in one; id and name only in each call's first fragment.
   */
  public static final String TOOL_CALLS =
      """
      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"Let me add.","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Add1","type":"function","function":{"name":"add","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\""}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1,\\"b"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\":2}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_Echo2","type":"function","function":{"name":"echo","arguments":"{\\"text\\": \\"x\\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

      data: {"id":"chatcmpl-B2","object":"chat.completion.chunk","created":1735689601,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}}

      data: [DONE]

      """;

  /** A tool call with its arguments complete, then the stream ends: no finish part, no [DONE]. */
  public static final String CUT_AFTER_TOOL_CALL =
      """
      data: {"id":"chatcmpl-B3","object":"chat.completion.chunk","created":1735689602,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"role":"assistant","content":"Adding","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

      data: {"id":"chatcmpl-B3","object":"chat.completion.chunk","created":1735689602,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_Cut1","type":"function","function":{"name":"add","arguments":"{\\"a\\":1,\\"b\\":2}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

      """;

  /** A plain answer of the given text deltas, with usage and [DONE]. */
  public static String answer(String... deltas) {
    StringBuilder wire = new StringBuilder();
    wire.append(chunk("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}", null));
    for (String delta : deltas) {
      wire.append(chunk("{\"content\":" + quote(delta) + "}", null));
    }
    wire.append(chunk("{}", "stop"));
    wire.append(
        "data: {\"id\":\"chatcmpl-G\",\"object\":\"chat.completion.chunk\",\"created\":1735689700,"
            + "\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,"
            + "\"completion_tokens\":"
            + deltas.length
            + ",\"total_tokens\":"
            + (10 + deltas.length)
            + "}}\n\n");
    wire.append("data: [DONE]\n\n");
    return wire.toString();
  }

  public static String chunk(String delta, String finishReason) {
    return "data: {\"id\":\"chatcmpl-G\",\"object\":\"chat.completion.chunk\",\"created\":1735689700,"
        + "\"model\":\"gpt-4o-mini-2024-07-18\",\"choices\":[{\"index\":0,\"delta\":"
        + delta
        + ",\"logprobs\":null,\"finish_reason\":"
        + (finishReason == null ? "null" : quote(finishReason))
        + "}],\"usage\":null}\n\n";
  }

  public static String quote(String text) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
