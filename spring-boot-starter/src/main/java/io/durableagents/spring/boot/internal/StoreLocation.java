package io.durableagents.spring.boot.internal;

import com.zaxxer.hikari.HikariDataSource;
import io.durableagents.spring.boot.DurableAgentsProperties;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;

/**
 * Where the store is and where the projection reader reads: {@code durable-agents.store.url}, else
 * the application's {@link DataSource} (unless {@code durable-agents.store.use-data-source} is
 * false), else the SQLite file the worker app uses by default.
 */
public final class StoreLocation {
  /** The store of an application that sets no URL and has no DataSource. */
  public static final String DEFAULT_URL = "jdbc:sqlite:.agents/projection.db";

  private static final String PROJECTION_URL = DurableAgentsProperties.PREFIX + ".projection.url";

  private StoreLocation() {}

  /**
   * The DataSource the store goes on, or null when it has a URL, may not use the DataSource, or the
   * application has no single one. Looked up only when it may be used, so that an application whose
   * DataSource is not configured still starts with a store URL.
   */
  public static DataSource dataSource(
      DurableAgentsProperties properties, ObjectProvider<DataSource> dataSources) {
    boolean mayUse =
        properties.getStore().getUrl() == null && properties.getStore().isUseDataSource();
    return mayUse ? dataSources.getIfUnique() : null;
  }

  /** The store's URL when it does not use the DataSource. */
  public static String storeUrl(DurableAgentsProperties properties) {
    String url = properties.getStore().getUrl();
    return url == null ? DEFAULT_URL : url;
  }

  /**
   * The JDBC URL the projection reader reads: {@code durable-agents.projection.url}, else the
   * store's ({@code dataSource} is the one {@link #dataSource} chose). A DataSource's URL is its
   * HikariCP URL or {@code spring.datasource.url}; PostgreSQL credentials set beside it are added
   * to the URL, where the reader takes them.
   */
  public static String projectionUrl(
      DurableAgentsProperties properties, DataSource dataSource, Environment environment) {
    if (properties.getProjection().getUrl() != null) {
      return properties.getProjection().getUrl();
    }
    if (dataSource == null) {
      return storeUrl(properties);
    }
    String url;
    String user;
    String password;
    if (dataSource instanceof HikariDataSource hikari && hikari.getJdbcUrl() != null) {
      url = hikari.getJdbcUrl();
      user = hikari.getUsername();
      password = hikari.getPassword();
    } else {
      url = environment.getProperty("spring.datasource.url");
      user = environment.getProperty("spring.datasource.username");
      password = environment.getProperty("spring.datasource.password");
    }
    if (url == null) {
      throw InvalidProperty.of(
          PROJECTION_URL,
          null,
          "the store is on the application's DataSource, whose JDBC URL is unknown:"
              + " set this property to it for the ProjectionReader");
    }
    return withCredentials(url, user, password);
  }

  static String withCredentials(String url, String user, String password) {
    if (!url.startsWith("jdbc:postgresql:")) {
      return url;
    }
    StringBuilder result = new StringBuilder(url);
    appendParameter(result, "user", user);
    appendParameter(result, "password", password);
    return result.toString();
  }

  private static void appendParameter(StringBuilder url, String name, String value) {
    if (value == null || value.isEmpty() || url.indexOf(name + "=") >= 0) {
      return;
    }
    url.append(url.indexOf("?") >= 0 ? '&' : '?')
        .append(name)
        .append('=')
        .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
  }
}
