package io.durableagents.activities.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Serialized sizes, as Temporal's JSON payload converter would write them. */
final class PayloadSizes {
  private static final ObjectMapper JSON = new ObjectMapper();

  private PayloadSizes() {}

  static int jsonBytes(Object value) {
    try {
      return JSON.writeValueAsBytes(value).length;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("Not serializable as JSON: " + e.getMessage(), e);
    }
  }
}
