package io.durableagents.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.durableagents.store.AgentStore;
import io.durableagents.store.AgentStores;
import io.durableagents.store.StoreException;
import io.durableagents.store.internal.CheckpointStore;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreOpeningTest {
  @TempDir Path dir;

  @Test
  void anUnreachableDatabase_isWaitedFor_untilTheStoreOpens() {
    AtomicInteger attempts = new AtomicInteger();
    String url = "jdbc:sqlite:" + dir.resolve("store.db");

    try (AgentStore store =
        StoreOpening.open(
            url,
            () -> {
              if (attempts.incrementAndGet() < 3) {
                throw new StoreException(
                    "cannot connect", new SQLException("Connection refused", "08001"));
              }
              return AgentStores.open(url);
            })) {
      assertThat(CheckpointStore.of(store).session("none")).isEmpty();
    }
    assertThat(attempts).hasValue(3);
  }

  @Test
  void otherFailures_failAtOnce() {
    AtomicInteger attempts = new AtomicInteger();

    assertThatThrownBy(
            () ->
                StoreOpening.open(
                    "jdbc:postgresql://db/agents",
                    () -> {
                      attempts.incrementAndGet();
                      throw new StoreException(
                          "cannot connect",
                          new SQLException("password authentication failed", "28P01"));
                    }))
        .isInstanceOf(StoreException.class);
    assertThat(attempts).hasValue(1);
  }
}
