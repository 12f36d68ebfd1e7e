package io.durableagents.activities.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.api.enums.v1.IndexedValueType;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SearchAttributeCheckTest {
  private static final IndexedValueType KEYWORD = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  private static final IndexedValueType INT = IndexedValueType.INDEXED_VALUE_TYPE_INT;

  @Test
  void allFourWithTheirTypes_areComplete() {
    assertThat(
            SearchAttributeCheck.missing(
                Map.of(
                    "AgentName",
                    KEYWORD,
                    "AgentStatus",
                    KEYWORD,
                    "AgentPendingApprovals",
                    INT,
                    "AgentParentSession",
                    KEYWORD,
                    "AgentConcurrencyKey",
                    KEYWORD,
                    "CustomerId",
                    KEYWORD)))
        .isEmpty();
  }

  @Test
  void anAbsentAttribute_orOneOfAnotherType_isMissing() {
    assertThat(
            SearchAttributeCheck.missing(
                Map.of(
                    "AgentName",
                    KEYWORD,
                    "AgentStatus",
                    IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
                    "AgentPendingApprovals",
                    INT)))
        .containsExactly("AgentStatus", "AgentParentSession", "AgentConcurrencyKey");
  }
}
