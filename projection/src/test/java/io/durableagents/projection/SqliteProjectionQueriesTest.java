package io.durableagents.projection;

import static org.assertj.core.api.Assertions.assertThat;

import io.durableagents.projection.ProjectionUrl.Kind;
import io.durableagents.projection.internal.ProjectionQueries;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read model on real SQLite files, plus what is particular to SQLite. */
class SqliteProjectionQueriesTest extends ProjectionQueriesContract {
  private final AtomicInteger databases = new AtomicInteger();

  @TempDir Path dir;

  @Override
  protected Kind kind() {
    return Kind.SQLITE;
  }

  @Override
  protected String newDatabaseUrl() {
    return "jdbc:sqlite:" + dir.resolve("projection-" + databases.incrementAndGet() + ".db");
  }

  @Test
  void bodiesReadAsBytesOrAsText_decodeAlike() throws Exception {
    String url = newDatabaseUrl();
    migrate(url, null);
    for (int seq = 0; seq < transcript().size(); seq++) {
      insertMessage(url, "chat-1", seq, JSON.writeValueAsString(transcript().get(seq)));
    }
    ProjectionQueries fromBytes = ProjectionQueries.of(Kind.SQLITE);
    try (Connection connection = ProjectionUrl.parse(url, "projection").openReadOnly()) {
      assertThat(fromBytes.messages(connection, "chat-1", 0, 4))
          .isEqualTo(transcript())
          .isEqualTo(ProjectionQueries.portable().messages(connection, "chat-1", 0, 4));
    }
  }
}
