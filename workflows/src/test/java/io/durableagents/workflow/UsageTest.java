package io.durableagents.workflow;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.conversation.Usage;
import org.junit.jupiter.api.Test;

class UsageTest {

  @Test
  void sumsAddTokens() {
    assertThat(new Usage(10, 3).plus(new Usage(5, 2))).isEqualTo(new Usage(15, 5));
    assertThat(new Usage(10, 3).total()).isEqualTo(13);
    assertThat(new Usage(10, 3).plus(null)).isEqualTo(new Usage(10, 3));
  }

  @Test
  void aNegativeCount_addsNothing_soTotalsNeverGoNegative() {
    Usage total = Usage.ZERO.plus(new Usage(-1_000_000, -5)).plus(new Usage(7, 2));

    assertThat(total).isEqualTo(new Usage(7, 2));
    assertThat(new Usage(-9, 4).total()).isEqualTo(4);
  }

  @Test
  void sumsPastTheLargestLong_stayThere_soAMaxTokensBudgetStillTrips() {
    Usage huge = new Usage(Long.MAX_VALUE - 1, Long.MAX_VALUE);

    assertThat(huge.total()).isEqualTo(Long.MAX_VALUE);
    assertThat(huge.plus(new Usage(10, 10))).isEqualTo(new Usage(Long.MAX_VALUE, Long.MAX_VALUE));
    assertThat(huge.plus(huge).total()).isEqualTo(Long.MAX_VALUE).isGreaterThanOrEqualTo(1_000);
  }
}
