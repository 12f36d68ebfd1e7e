package io.durableagents.console;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where {@link AgentConsole} listens and how it authenticates; build with {@link #newBuilder()}.
 */
public final class ConsoleOptions {
  /** The default port of {@code agents console}. */
  public static final int DEFAULT_PORT = 8080;

  /** How long a page's login lasts by default. */
  public static final Duration DEFAULT_LOGIN_TIMEOUT = Duration.ofHours(12);

  /** The default address: loopback only. */
  public static final String DEFAULT_BIND = "127.0.0.1";

  private final String bind;
  private final int port;
  private final ConsoleAuth authentication;
  private final String temporalUiUrl;
  private final String namespace;
  private final List<URI> workerEvents;
  private final Duration loginTimeout;

  private ConsoleOptions(Builder builder) {
    this.bind = builder.bind;
    this.port = builder.port;
    this.authentication = builder.authentication;
    this.temporalUiUrl = builder.temporalUiUrl;
    this.namespace = builder.namespace;
    this.workerEvents = List.copyOf(builder.workerEvents);
    this.loginTimeout = builder.loginTimeout;
  }

  /**
   * A builder with the defaults: loopback only, port {@value #DEFAULT_PORT}, local authentication.
   */
  public static Builder newBuilder() {
    return new Builder();
  }

  /** A builder holding these options, to derive changed ones. */
  public static Builder newBuilder(ConsoleOptions options) {
    return new Builder(options);
  }

  /** {@link #newBuilder(ConsoleOptions)} of these options. */
  public Builder toBuilder() {
    return newBuilder(this);
  }

  /** The defaults, as {@link #newBuilder()} builds them. */
  public static ConsoleOptions getDefaultInstance() {
    return newBuilder().build();
  }

  /** The address it listens on; {@value #DEFAULT_BIND} unless set. */
  public String getBind() {
    return bind;
  }

  /** The port it listens on; 0 for a free one, see {@link AgentConsole#port}. */
  public int getPort() {
    return port;
  }

  /**
   * Whether the console listens on a loopback address only, which no other machine reaches: the one
   * case where it may run without authentication.
   *
   * @throws IllegalArgumentException when the address does not resolve
   */
  public boolean bindsLoopback() {
    try {
      return InetAddress.getByName(bind).isLoopbackAddress();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("cannot resolve the address '" + bind + "'", e);
    }
  }

  /** How callers are authenticated; {@link ConsoleAuth#local()} unless set. */
  public ConsoleAuth getAuthentication() {
    return authentication;
  }

  /** The Temporal UI's base URL, e.g. {@code http://127.0.0.1:8233}, or null when none is known. */
  public String getTemporalUiUrl() {
    return temporalUiUrl;
  }

  /** The sessions' Temporal namespace, used in the links to the Temporal UI. */
  public String getNamespace() {
    return namespace;
  }

  /** The events endpoints of workers whose deltas the session pages show. */
  public List<URI> getWorkerEvents() {
    return workerEvents;
  }

  /**
   * How long a login of the pages (a token exchanged for a cookie) lasts before the token is asked
   * for again.
   */
  public Duration getLoginTimeout() {
    return loginTimeout;
  }

  /** Builds {@link ConsoleOptions}; see {@link ConsoleOptions#newBuilder()}. */
  public static final class Builder {
    private String bind = DEFAULT_BIND;
    private int port = DEFAULT_PORT;
    private ConsoleAuth authentication = ConsoleAuth.local();
    private String temporalUiUrl;
    private String namespace = "default";
    private final List<URI> workerEvents = new ArrayList<>();
    private Duration loginTimeout = DEFAULT_LOGIN_TIMEOUT;

    private Builder() {}

    private Builder(ConsoleOptions options) {
      this.bind = options.bind;
      this.port = options.port;
      this.authentication = options.authentication;
      this.temporalUiUrl = options.temporalUiUrl;
      this.namespace = options.namespace;
      this.workerEvents.addAll(options.workerEvents);
      this.loginTimeout = options.loginTimeout;
    }

    /** The address to listen on (default 127.0.0.1); any other needs authentication. */
    public Builder setBind(String bind) {
      this.bind = Objects.requireNonNull(bind, "bind");
      return this;
    }

    /**
     * The port (default {@value #DEFAULT_PORT}); 0 picks a free one ({@link AgentConsole#port}).
     */
    public Builder setPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0 to 65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /** Who callers are (default {@link ConsoleAuth#local()}). */
    public Builder setAuthentication(ConsoleAuth authentication) {
      this.authentication = Objects.requireNonNull(authentication, "authentication");
      return this;
    }

    /** The Temporal UI to link each session to (null: no link). */
    public Builder setTemporalUiUrl(String temporalUiUrl) {
      if (temporalUiUrl != null && !temporalUiUrl.matches("https?://[^\\s]+")) {
        throw new IllegalArgumentException(
            "the Temporal UI URL must be http:// or https://, got '" + temporalUiUrl + "'");
      }
      this.temporalUiUrl = temporalUiUrl == null ? null : temporalUiUrl.replaceAll("/+$", "");
      return this;
    }

    /** The sessions' Temporal namespace, for the links to the Temporal UI (default "default"). */
    public Builder setNamespace(String namespace) {
      this.namespace = Objects.requireNonNull(namespace, "namespace");
      return this;
    }

    /**
     * A worker in another process whose model deltas the session pages show: the base URL of its
     * events endpoint ({@code agents worker --http-port 8233}: {@code http://HOST:8233}). A console
     * in the worker's own process gets them from {@link AgentConsole#publishDelta} instead.
     */
    public Builder addWorkerEvents(URI baseUrl) {
      Objects.requireNonNull(baseUrl, "baseUrl");
      String scheme = baseUrl.getScheme();
      if ((!"http".equals(scheme) && !"https".equals(scheme)) || baseUrl.getHost() == null) {
        throw new IllegalArgumentException(
            "a worker's events URL must be http://HOST:PORT, got '" + baseUrl + "'");
      }
      String text = baseUrl.toString();
      this.workerEvents.add(URI.create(text.endsWith("/") ? text : text + "/"));
      return this;
    }

    /**
     * How long a login of the pages lasts (default 12 hours); bearer tokens are checked on each
     * request and never expire here.
     */
    public Builder setLoginTimeout(Duration loginTimeout) {
      Objects.requireNonNull(loginTimeout, "loginTimeout");
      if (loginTimeout.isNegative() || loginTimeout.isZero()) {
        throw new IllegalArgumentException("loginTimeout must be positive, got " + loginTimeout);
      }
      this.loginTimeout = loginTimeout;
      return this;
    }

    /** The options; each setter has already checked its value. */
    public ConsoleOptions build() {
      return new ConsoleOptions(this);
    }
  }
}
