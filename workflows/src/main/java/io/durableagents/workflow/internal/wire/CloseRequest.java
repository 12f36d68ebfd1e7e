package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Input of update {@code close}. {@code force}: a run paused on an approval (or any run in
 * progress) is cancelled, its approval settled as cancelled; without it a pending approval refuses
 * the close and a run in progress finishes first. {@code delete}: the worker removes the session's
 * projection rows before the workflow completes (its checkpoint history stays when {@code
 * keepHistory}).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record CloseRequest(
    @JsonProperty("force") boolean force,
    @JsonProperty("delete") boolean delete,
    @JsonProperty("keepHistory") boolean keepHistory,
    @JsonProperty("reason") String reason) {

  /** A close by a client, letting the run in progress finish. */
  public static CloseRequest close(boolean force) {
    return new CloseRequest(force, false, false, "closed by client");
  }

  /** A close that also removes the session's projection rows. */
  public static CloseRequest delete(boolean force, boolean keepHistory) {
    return new CloseRequest(force, true, keepHistory, "deleted by client");
  }
}
