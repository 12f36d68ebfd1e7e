package io.durableagents.workflow.internal.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Who holds the lease of one concurrency key ({@code holder}, null: nobody) and who waits for it,
 * first come first served ({@code waiting}). Carried over the key workflow's continue-as-new and
 * answered by its {@code leases} query.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record KeyLeases(
    @JsonProperty("holder") LeaseRequest holder,
    @JsonProperty("waiting") List<LeaseRequest> waiting) {

  public KeyLeases {
    waiting = waiting == null ? List.of() : List.copyOf(waiting);
  }

  /**
   * The place of run {@code run} of {@code sessionId}: 0 while it holds the lease, 1 for the first
   * waiting run, and so on; -1 when it neither holds nor waits.
   */
  public int placeOf(String sessionId, int run) {
    LeaseRequest probe = new LeaseRequest(null, sessionId, run);
    if (probe.sameHolder(holder)) {
      return 0;
    }
    for (int i = 0; i < waiting.size(); i++) {
      if (probe.sameHolder(waiting.get(i))) {
        return i + 1;
      }
    }
    return -1;
  }
}
