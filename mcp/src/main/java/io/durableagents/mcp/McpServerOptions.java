package io.durableagents.mcp;

import io.durableagents.tools.ApprovalPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One MCP server an agent takes tools from: a process the worker starts and talks to over stdio
 * ({@link Builder#setCommand}), or a server it reaches over streamable HTTP ({@link
 * Builder#setUrl}); which of its tools the agent takes, and how their calls run.
 *
 * <pre>{@code
 * McpServerOptions weather = McpServerOptions.newBuilder("weather")
 *     .setCommand("python3", List.of("weather_server.py"))
 *     .setTools(List.of("forecast", "book_umbrella"))
 *     .setApprovalPolicy("book_umbrella", ApprovalPolicy.ALWAYS)
 *     .build();
 * }</pre>
 */
public final class McpServerOptions {
  /**
   * The longest tool or connect timeout: the MCP client waits in nanoseconds, a {@code long} of
   * them (about 292 years).
   */
  public static final Duration MAX_TIMEOUT = Duration.ofNanos(Long.MAX_VALUE);

  /** Headers the JDK's HTTP client sets itself and refuses to take from a caller. */
  private static final Set<String> RESTRICTED_HEADERS =
      Set.of("connection", "content-length", "expect", "host", "upgrade");

  private final String name;
  private final String command;
  private final List<String> args;
  private final Map<String, String> env;
  private final URI url;
  private final Map<String, String> headers;
  private final List<String> tools;
  private final Map<String, ApprovalPolicy> approvalPolicies;
  private final ApprovalPolicy defaultApprovalPolicy;
  private final Duration toolTimeout;
  private final int maxAttempts;
  private final Duration connectTimeout;
  private final boolean optional;

  private McpServerOptions(Builder builder) {
    this.name = builder.name;
    this.command = builder.command;
    this.args = List.copyOf(builder.args);
    this.env = Map.copyOf(builder.env);
    this.url = builder.url;
    this.headers = Map.copyOf(builder.headers);
    this.tools = builder.tools == null ? null : List.copyOf(builder.tools);
    this.approvalPolicies = Map.copyOf(builder.approvalPolicies);
    this.defaultApprovalPolicy = builder.defaultApprovalPolicy;
    this.toolTimeout = builder.toolTimeout;
    this.maxAttempts = builder.maxAttempts;
    this.connectTimeout = builder.connectTimeout;
    this.optional = builder.optional;
  }

  /** A builder for server {@code name} (1-64 letters, digits, '_', '.' or '-'). */
  public static Builder newBuilder(String name) {
    return new Builder(name);
  }

  /** A builder holding these options, to derive changed ones. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** The server's name in messages, logs and agents files. */
  public String name() {
    return name;
  }

  /** The command the worker starts for a stdio server; null for an HTTP server. */
  public String command() {
    return command;
  }

  /** The arguments of a stdio server's command. */
  public List<String> args() {
    return args;
  }

  /** Variables added to the worker's environment for the server process. */
  public Map<String, String> env() {
    return env;
  }

  /** The endpoint of a streamable HTTP server; null for a stdio server. */
  public URI url() {
    return url;
  }

  /** Headers sent with every HTTP request, e.g. {@code Authorization}. */
  public Map<String, String> headers() {
    return headers;
  }

  /** The names of the tools the agent takes; null for all the server lists. */
  public List<String> tools() {
    return tools;
  }

  /** The approval policy of a tool of this server: its own, else the server's default. */
  public ApprovalPolicy approvalPolicy(String tool) {
    return approvalPolicies.getOrDefault(tool, defaultApprovalPolicy);
  }

  /** How long one call may take (the tool activity's start-to-close timeout). */
  public Duration toolTimeout() {
    return toolTimeout;
  }

  /** Attempts per call, counting the first: a server that is down fails an attempt. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** How long starting or reaching the server, and listing its tools, may take. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** Whether a run starts without this server's tools when it cannot be reached. */
  public boolean isOptional() {
    return optional;
  }

  /** Builds {@link McpServerOptions}: a command or a URL is required, the rest has defaults. */
  public static final class Builder {
    private final String name;
    private String command;
    private List<String> args = List.of();
    private Map<String, String> env = Map.of();
    private URI url;
    private Map<String, String> headers = Map.of();
    private List<String> tools;
    private final Map<String, ApprovalPolicy> approvalPolicies = new LinkedHashMap<>();
    private ApprovalPolicy defaultApprovalPolicy = ApprovalPolicy.NEVER;
    private Duration toolTimeout = Duration.ofMinutes(1);
    private int maxAttempts = 3;
    private Duration connectTimeout = Duration.ofSeconds(20);
    private boolean optional;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    private Builder(McpServerOptions options) {
      this.name = options.name;
      this.command = options.command;
      this.args = options.args;
      this.env = options.env;
      this.url = options.url;
      this.headers = options.headers;
      this.tools = options.tools;
      this.approvalPolicies.putAll(options.approvalPolicies);
      this.defaultApprovalPolicy = options.defaultApprovalPolicy;
      this.toolTimeout = options.toolTimeout;
      this.maxAttempts = options.maxAttempts;
      this.connectTimeout = options.connectTimeout;
      this.optional = options.optional;
    }

    /** A stdio server: the worker starts {@code command} with {@code args} and restarts it. */
    public Builder setCommand(String command, List<String> args) {
      this.command = Objects.requireNonNull(command, "command");
      this.args = List.copyOf(args);
      return this;
    }

    /** Variables added to the worker's environment for a stdio server's process. */
    public Builder setEnv(Map<String, String> env) {
      this.env = Map.copyOf(env);
      return this;
    }

    /** A streamable HTTP server at {@code url} (e.g. {@code http://localhost:3001/mcp}). */
    public Builder setUrl(URI url) {
      this.url = Objects.requireNonNull(url, "url");
      return this;
    }

    /** Headers sent with every request to an HTTP server, e.g. {@code Authorization}. */
    public Builder setHeaders(Map<String, String> headers) {
      this.headers = Map.copyOf(headers);
      return this;
    }

    /** Takes only these tools of the server (default: all it lists). */
    public Builder setTools(List<String> tools) {
      this.tools = List.copyOf(tools);
      return this;
    }

    /** The approval policy of one tool of the server. */
    public Builder setApprovalPolicy(String tool, ApprovalPolicy policy) {
      approvalPolicies.put(Objects.requireNonNull(tool, "tool"), Objects.requireNonNull(policy));
      return this;
    }

    /** The approval policy of the server's other tools (default {@link ApprovalPolicy#NEVER}). */
    public Builder setDefaultApprovalPolicy(ApprovalPolicy policy) {
      this.defaultApprovalPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /** How long one call may take (default 1 minute), also the MCP request timeout. */
    public Builder setToolTimeout(Duration toolTimeout) {
      this.toolTimeout = Objects.requireNonNull(toolTimeout, "toolTimeout");
      return this;
    }

    /** Attempts per call while the server is unreachable, the first included (default 3). */
    public Builder setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** How long starting or reaching the server and listing its tools may take (default 20 s). */
    public Builder setConnectTimeout(Duration connectTimeout) {
      this.connectTimeout = Objects.requireNonNull(connectTimeout, "connectTimeout");
      return this;
    }

    /** Whether runs go on without the server's tools when it cannot be reached (default no). */
    public Builder setOptional(boolean optional) {
      this.optional = optional;
      return this;
    }

    /**
     * The options; refuses what can never work, naming the field: neither or both of a command and
     * a URL, an empty command, {@code headers} on a stdio server or {@code env} on an HTTP one, a
     * header that is not a valid HTTP header (a space in its name, a line break in its value) or
     * that the HTTP client sets itself, and a timeout that is not positive or longer than the
     * client can wait ({@link #MAX_TIMEOUT}).
     */
    public McpServerOptions build() {
      if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
        throw new IllegalArgumentException(
            "MCP server name '" + name + "' must be 1-64 letters, digits, '_', '.' or '-'.");
      }
      if ((command == null) == (url == null)) {
        throw new IllegalArgumentException(
            "MCP server '" + name + "' needs either a command (stdio) or a url (HTTP).");
      }
      if (command != null && command.isBlank()) {
        throw refused("command is empty: it names the program the worker starts, e.g. python3.");
      }
      if (command != null && !headers.isEmpty()) {
        throw refused(
            "headers are sent to an HTTP server (url); a stdio server (command) takes none (give it"
                + " env instead).");
      }
      if (url != null && !env.isEmpty()) {
        throw refused(
            "env is the environment of a stdio server's process (command); an HTTP server (url)"
                + " takes none (give it headers instead).");
      }
      if (url != null && !("http".equals(url.getScheme()) || "https".equals(url.getScheme()))) {
        throw refused("url must be http or https, not " + url + ".");
      }
      if (url != null && (url.getHost() == null || url.getHost().isEmpty())) {
        throw refused("url " + url + " names no host.");
      }
      headers.forEach(this::checkHeader);
      if (maxAttempts < 1) {
        throw refused("maxAttempts must be at least 1.");
      }
      checkTimeout("toolTimeout", toolTimeout);
      checkTimeout("connectTimeout", connectTimeout);
      return new McpServerOptions(this);
    }

    private void checkTimeout(String field, Duration timeout) {
      if (timeout.isZero() || timeout.isNegative() || timeout.compareTo(MAX_TIMEOUT) > 0) {
        throw refused(
            field
                + " must be positive and at most "
                + MAX_TIMEOUT.toDays()
                + " days (the longest the MCP client can wait), got "
                + timeout
                + ".");
      }
    }

    private IllegalArgumentException refused(String problem) {
      return new IllegalArgumentException("MCP server '" + name + "': " + problem);
    }

    /**
     * Refuses a header the HTTP client cannot send: a name that is not an RFC 9110 token (a space,
     * a colon), a value with a line break or another control character, or a header the JDK's
     * client sets itself (unless {@code jdk.httpclient.allowRestrictedHeaders} allows it).
     */
    private void checkHeader(String header, String value) {
      if (header.isEmpty() || !header.chars().allMatch(Builder::isTokenChar)) {
        throw refused(
            "headers: '"
                + header
                + "' is not a header name (letters, digits and !#$%&'*+-.^_`|~ only, no spaces"
                + " or colons).");
      }
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c == '\r' || c == '\n') {
          throw refused("headers." + header + ": the value holds a line break (CR or LF).");
        }
        if ((c < ' ' && c != '\t') || c == 0x7f || c > 0xff) {
          throw refused(
              "headers."
                  + header
                  + ": the value holds a character an HTTP header cannot carry (U+"
                  + String.format(Locale.ROOT, "%04X", (int) c)
                  + ").");
        }
      }
      String lower = header.toLowerCase(Locale.ROOT);
      if (RESTRICTED_HEADERS.contains(lower) && !allowedRestrictedHeaders().contains(lower)) {
        throw refused("headers: '" + header + "' is set by the HTTP client itself.");
      }
    }

    private static boolean isTokenChar(int c) {
      return (c >= 'a' && c <= 'z')
          || (c >= 'A' && c <= 'Z')
          || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private static Set<String> allowedRestrictedHeaders() {
      String allowed = System.getProperty("jdk.httpclient.allowRestrictedHeaders", "");
      Set<String> names = new HashSet<>();
      for (String name : allowed.split(",", -1)) {
        names.add(name.strip().toLowerCase(Locale.ROOT));
      }
      return names;
    }
  }
}
