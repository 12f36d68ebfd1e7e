package io.durableagents.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.envconfig.ClientConfig;
import io.temporal.envconfig.ClientConfigProfile;
import io.temporal.envconfig.ClientConfigTLS;
import io.temporal.envconfig.LoadClientConfigProfileOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Where and how the CLI and the worker app reach Temporal, resolved like the Temporal CLI and SDKs
 * do (Temporal's environment configuration): a profile of {@code temporal.toml}, overridden by the
 * {@code TEMPORAL_*} environment variables, overridden by command-line options; then the defaults
 * {@code 127.0.0.1:7233} and namespace {@code default}. An API key or a client certificate turns
 * TLS on. Invalid settings fail in {@link Builder#build()} with a {@link CliException} of exit code
 * {@link ExitCodes#USAGE}; {@link #connect()} checks the server and the namespace.
 *
 * <pre>{@code
 * ConnectionSettings settings = ConnectionSettings.newBuilder(System.getenv()).setProfile("prod").build();
 * WorkflowServiceStubs service = settings.connect();
 * WorkflowClient client = WorkflowClient.newInstance(service, settings.clientOptions());
 * }</pre>
 */
public final class ConnectionSettings {
  /** The address used when no option, variable or profile names one: a local dev server. */
  public static final String DEFAULT_ADDRESS = "127.0.0.1:7233";

  /** The namespace used when no option, variable or profile names one. */
  public static final String DEFAULT_NAMESPACE = "default";

  /** Deadline of the namespace check; the health check has the SDK's 5 s attempt deadline. */
  static final long NAMESPACE_CHECK_SECONDS = 5;

  /** Health calls that may time out before Temporal counts as unreachable. */
  static final int HEALTH_CHECK_ATTEMPTS = 3;

  private static final String GRPC_META_PREFIX = "TEMPORAL_GRPC_META_";

  private final ClientConfigProfile profile;
  private final WorkflowServiceStubsOptions stubsOptions;

  private ConnectionSettings(ClientConfigProfile profile) {
    this.profile = profile;
    this.stubsOptions = stubsOptions(profile);
  }

  /** The settings of {@code env} alone: its profile and {@code TEMPORAL_*} variables. */
  public static ConnectionSettings fromEnvironment(Map<String, String> env) {
    return newBuilder(env).build();
  }

  /** A plain (no TLS, no API key) connection to {@code address}, e.g. a local dev server. */
  public static ConnectionSettings plain(String address, String namespace) {
    return new ConnectionSettings(
        ClientConfigProfile.newBuilder()
            .setAddress(requireText(address, "address"))
            .setNamespace(requireText(namespace, "namespace"))
            .build());
  }

  /** Settings read from {@code env} (the process environment, or a map in tests). */
  public static Builder newBuilder(Map<String, String> env) {
    return new Builder(env);
  }

  /** The resolved Temporal address, {@code HOST:PORT}. */
  public String address() {
    return profile.getAddress();
  }

  /** The resolved Temporal namespace. */
  public String namespace() {
    return profile.getNamespace();
  }

  /** True when the connection uses TLS (an SSL context, or the default one for an API key). */
  public boolean tls() {
    return stubsOptions.getSslContext() != null || stubsOptions.getEnableHttps();
  }

  /** True when an API key is set, from the key file, {@code TEMPORAL_API_KEY} or the profile. */
  public boolean hasApiKey() {
    return !isBlank(profile.getApiKey());
  }

  /**
   * Options for {@link WorkflowServiceStubs#newServiceStubs}: target, TLS, API key, gRPC metadata.
   */
  public WorkflowServiceStubsOptions serviceStubsOptions() {
    return stubsOptions;
  }

  /** Options for {@code WorkflowClient.newInstance}: the namespace. */
  public WorkflowClientOptions clientOptions() {
    return profile.toWorkflowClientOptions();
  }

  /**
   * Service stubs, checked with a health call and a DescribeNamespace, each under a deadline, so a
   * wrong address or namespace fails in seconds with a {@link CliException} instead of hanging.
   */
  public WorkflowServiceStubs connect() {
    WorkflowServiceStubs stubs;
    try {
      stubs = WorkflowServiceStubs.newServiceStubs(stubsOptions);
    } catch (RuntimeException e) {
      throw new CliException(
          ExitCodes.USAGE,
          "Invalid Temporal address '" + Shown.value(address()) + "': expected HOST:PORT.",
          e);
    }
    try {
      healthCheck(stubs);
      checkNamespace(stubs);
      return stubs;
    } catch (RuntimeException e) {
      stubs.shutdownNow();
      if (e instanceof CliException) {
        throw e;
      }
      throw e instanceof StatusRuntimeException status
              && refusedCredentials(status.getStatus().getCode())
          ? refused(status)
          : unreachable(e);
    }
  }

  /**
   * The health call, tried again when it only timed out: a refused connection fails the first
   * attempt at once, while a server that is slow to answer (a loaded machine, a cold start) gets
   * {@link #HEALTH_CHECK_ATTEMPTS} attempts of the SDK's deadline before it counts as unreachable.
   */
  private static void healthCheck(WorkflowServiceStubs stubs) {
    for (int attempt = 1; ; attempt++) {
      try {
        stubs.healthCheck();
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED
            || attempt == HEALTH_CHECK_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  private static boolean refusedCredentials(Status.Code code) {
    return code == Status.Code.UNAUTHENTICATED || code == Status.Code.PERMISSION_DENIED;
  }

  private CliException refused(StatusRuntimeException e) {
    return new CliException(
        ExitCodes.ERROR,
        "Temporal at "
            + address()
            + " refused the credentials ("
            + firstLine(e)
            + "): check the API key (TEMPORAL_API_KEY, --api-key-file) or the client certificate.",
        e);
  }

  private void checkNamespace(WorkflowServiceStubs stubs) {
    try {
      stubs
          .blockingStub()
          .withDeadlineAfter(NAMESPACE_CHECK_SECONDS, TimeUnit.SECONDS)
          .describeNamespace(
              DescribeNamespaceRequest.newBuilder().setNamespace(namespace()).build());
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      if (code == Status.Code.NOT_FOUND) {
        throw new CliException(
            ExitCodes.ERROR,
            "Namespace '"
                + namespace()
                + "' does not exist on Temporal at "
                + address()
                + ": create it (temporal operator namespace create --namespace "
                + namespace()
                + "), or pick another with --namespace / TEMPORAL_NAMESPACE.",
            e);
      }
      if (code == Status.Code.UNAUTHENTICATED) {
        throw refused(e);
      }
      // A key scoped to fewer permissions, or a proxy without this call: the real calls will tell.
      if (code != Status.Code.PERMISSION_DENIED && code != Status.Code.UNIMPLEMENTED) {
        throw e;
      }
    }
  }

  private CliException unreachable(RuntimeException e) {
    return new CliException(
        ExitCodes.ERROR,
        "Cannot reach Temporal at "
            + address()
            + (tls() ? " over TLS" : "")
            + " ("
            + firstLine(e)
            + "): start one with './agents dev', or point --temporal / TEMPORAL_ADDRESS at yours.",
        e);
  }

  /**
   * {@code 127.0.0.1:7233}, or with what differs from a plain connection to namespace {@code
   * default}: {@code host:7233 (namespace ns, TLS, API key)}. Never the key itself.
   */
  public String describe() {
    List<String> details = new ArrayList<>();
    if (!DEFAULT_NAMESPACE.equals(namespace())) {
      details.add("namespace " + namespace());
    }
    if (tls()) {
      details.add("TLS");
    }
    if (hasApiKey()) {
      details.add(tls() ? "API key" : "API key, no TLS");
    }
    return details.isEmpty() ? address() : address() + " (" + String.join(", ", details) + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConnectionSettings other && profile.equals(other.profile);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        profile.getAddress(), profile.getNamespace(), profile.getApiKey(), profile.getTls());
  }

  /** Never prints the API key. */
  @Override
  public String toString() {
    return "ConnectionSettings{" + describe() + "}";
  }

  private static WorkflowServiceStubsOptions stubsOptions(ClientConfigProfile profile) {
    try {
      WorkflowServiceStubsOptions options = profile.toWorkflowServiceStubsOptions();
      if (profile.getTls() != null && Boolean.TRUE.equals(profile.getTls().isDisabled())) {
        // TLS turned off on purpose (TEMPORAL_TLS=false, tls.disabled): the SDK would otherwise
        // still use it whenever an API key is set.
        return WorkflowServiceStubsOptions.newBuilder(options).setEnableHttps(false).build();
      }
      return options;
    } catch (RuntimeException e) {
      throw new CliException(ExitCodes.USAGE, "Invalid TLS settings: " + rootMessage(e), e);
    }
  }

  static String firstLine(Throwable e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().strip();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline).strip();
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return firstLine(root);
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }

  private static String requireText(String value, String name) {
    if (isBlank(value)) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return value.strip();
  }

  /**
   * Resolves settings from an environment map plus command-line overrides. Blank values count as
   * unset, like the CLI's other environment defaults.
   */
  public static final class Builder {
    private final Map<String, String> env;
    private String address;
    private String namespace;
    private String profileName;
    private Path apiKeyFile;
    private boolean tls;

    private Builder(Map<String, String> env) {
      Map<String, String> set = new HashMap<>();
      Objects.requireNonNull(env, "env")
          .forEach(
              (name, value) -> {
                // An empty TEMPORAL_GRPC_META_X removes header x from the profile: keep it as it
                // is.
                if (name.startsWith(GRPC_META_PREFIX)) {
                  set.put(name, value);
                } else if (value != null && !value.isBlank()) {
                  set.put(name, value.strip());
                }
              });
      this.env = Map.copyOf(set);
    }

    /** {@code --temporal}: wins over {@code TEMPORAL_ADDRESS} and the profile. */
    public Builder setAddress(String address) {
      this.address = isBlank(address) ? null : address.strip();
      return this;
    }

    /** {@code --namespace}: wins over {@code TEMPORAL_NAMESPACE} and the profile. */
    public Builder setNamespace(String namespace) {
      this.namespace = isBlank(namespace) ? null : namespace.strip();
      return this;
    }

    /**
     * {@code --profile}: the {@code temporal.toml} profile, instead of {@code TEMPORAL_PROFILE}.
     */
    public Builder setProfile(String profile) {
      this.profileName = isBlank(profile) ? null : profile.strip();
      return this;
    }

    /** {@code --api-key-file}: a file holding the API key, instead of {@code TEMPORAL_API_KEY}. */
    public Builder setApiKeyFile(Path file) {
      this.apiKeyFile = file;
      return this;
    }

    /** {@code --tls}: TLS on even without an API key or client certificate. */
    public Builder setTls(boolean tls) {
      this.tls = tls;
      return this;
    }

    /** The resolved settings; a {@link CliException} (exit 2) for a setting that cannot work. */
    public ConnectionSettings build() {
      ClientConfigProfile loaded = load();
      ClientConfigProfile.Builder resolved = loaded.toBuilder();
      if (address != null) {
        resolved.setAddress(address);
      } else if (isBlank(loaded.getAddress())) {
        resolved.setAddress(DEFAULT_ADDRESS);
      }
      if (namespace != null) {
        resolved.setNamespace(namespace);
      } else if (isBlank(loaded.getNamespace())) {
        resolved.setNamespace(DEFAULT_NAMESPACE);
      }
      if (apiKeyFile != null) {
        resolved.setApiKey(readApiKey(apiKeyFile));
      }
      if (tls) {
        ClientConfigTLS current = loaded.getTls();
        ClientConfigTLS.Builder on =
            current == null ? ClientConfigTLS.newBuilder() : current.toBuilder();
        resolved.setTls(on.setDisabled(false).build());
      }
      ClientConfigProfile profile = resolved.build();
      requirePort(profile.getAddress());
      requireTlsFiles(profile.getTls());
      return new ConnectionSettings(profile);
    }

    /**
     * Refuses a HOST:PORT address whose port is empty or out of 1-65535 (exit 2), from any source:
     * gRPC would refuse it on a background thread, printing a stack trace, and then only report the
     * server unreachable. Targets with a scheme ({@code dns:///host:port}) are gRPC's to check.
     */
    static void requirePort(String address) {
      if (address == null || address.contains("://")) {
        return;
      }
      int colon = address.lastIndexOf(':');
      int bracket = address.lastIndexOf(']');
      if (colon < 0 || colon < bracket || (bracket < 0 && address.indexOf(':') != colon)) {
        return; // no port, or an IPv6 address without brackets: the SDK's to judge
      }
      String port = address.substring(colon + 1);
      if (port.isEmpty() || (port.chars().allMatch(Character::isDigit) && !validPort(port))) {
        throw new CliException(
            ExitCodes.USAGE,
            "Invalid Temporal address '"
                + Shown.value(address)
                + "': expected HOST:PORT with a port of 1-65535.");
      }
    }

    private static boolean validPort(String digits) {
      String significant = digits.replaceFirst("^0+", "");
      return !significant.isEmpty()
          && significant.length() <= 5
          && Integer.parseInt(significant) <= 65535;
    }

    /** The profile of the config file (if any) with the environment applied. */
    private ClientConfigProfile load() {
      String profile = profileName != null ? profileName : env.get("TEMPORAL_PROFILE");
      String profileSource = profileName != null ? "--profile" : "TEMPORAL_PROFILE";
      String explicitFile = env.get("TEMPORAL_CONFIG_FILE");
      Path file = explicitFile != null ? Path.of(explicitFile) : defaultConfigFile();
      byte[] toml = null;
      Map<String, ClientConfigProfile> profiles = Map.of();
      if (file != null && Files.isRegularFile(file)) {
        toml = readConfigFile(file);
        profiles = profilesOf(file, toml);
      } else if (explicitFile != null) {
        throw new CliException(
            ExitCodes.USAGE,
            "Temporal config file not found: " + file + " (from TEMPORAL_CONFIG_FILE).");
      }
      if (profile != null && !profiles.containsKey(profile)) {
        throw new CliException(
            ExitCodes.USAGE, noProfile(profile, profileSource, file, toml != null, profiles));
      }
      LoadClientConfigProfileOptions.Builder options =
          LoadClientConfigProfileOptions.newBuilder()
              .setEnvOverrides(env)
              .setConfigFileProfile(profile);
      if (profiles.isEmpty()) {
        options.setDisableFile(true);
      } else {
        options.setConfigFileData(toml);
      }
      try {
        return ClientConfigProfile.load(options.build());
      } catch (IOException | RuntimeException e) {
        throw malformed(file, e);
      }
    }

    private static byte[] readConfigFile(Path file) {
      try {
        return Files.readAllBytes(file);
      } catch (IOException e) {
        throw malformed(file, e);
      }
    }

    private static Map<String, ClientConfigProfile> profilesOf(Path file, byte[] toml) {
      if (toml.length == 0) {
        return Map.of();
      }
      try {
        return ClientConfig.fromToml(toml).getProfiles();
      } catch (IOException e) {
        throw malformed(file, e);
      } catch (NullPointerException e) {
        // envconfig 1.38 fails so on a file without [profile.*] tables (e.g. only comments).
        return Map.of();
      }
    }

    private static CliException malformed(Path file, Exception e) {
      String detail =
          e instanceof JsonProcessingException json && json.getLocation() != null
              ? json.getOriginalMessage()
                  + " (line "
                  + json.getLocation().getLineNr()
                  + ", column "
                  + json.getLocation().getColumnNr()
                  + ")"
              : firstLine(e);
      return new CliException(
          ExitCodes.USAGE, "Cannot read the Temporal config file " + file + ": " + detail, e);
    }

    private static String noProfile(
        String profile,
        String source,
        Path file,
        boolean fileExists,
        Map<String, ClientConfigProfile> profiles) {
      String start = "No Temporal profile '" + Shown.value(profile) + "' (from " + source + ")";
      if (!fileExists) {
        return start
            + ": there is no config file"
            + (file == null ? "" : " at " + file)
            + " (set TEMPORAL_CONFIG_FILE to yours).";
      }
      return start
          + " in "
          + file
          + (profiles.isEmpty()
              ? ": it has none."
              : "; it has: " + String.join(", ", new TreeSet<>(profiles.keySet())) + ".");
    }

    private static String readApiKey(Path file) {
      try {
        String key = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (key.isEmpty()) {
          throw new CliException(ExitCodes.USAGE, "The API key file " + file + " is empty.");
        }
        return key;
      } catch (IOException e) {
        throw new CliException(
            ExitCodes.USAGE,
            "Cannot read the API key file " + file + " (--api-key-file): " + firstLine(e),
            e);
      }
    }

    /**
     * Files the TLS settings name must exist; a certificate needs its key and the other way round.
     */
    private static void requireTlsFiles(ClientConfigTLS tls) {
      if (tls == null || Boolean.TRUE.equals(tls.isDisabled())) {
        return;
      }
      requireFile(
          tls.getClientCertPath(),
          "TLS client certificate",
          "TEMPORAL_TLS_CLIENT_CERT_PATH / tls.client_cert_path");
      requireFile(
          tls.getClientKeyPath(),
          "TLS client key",
          "TEMPORAL_TLS_CLIENT_KEY_PATH / tls.client_key_path");
      requireFile(
          tls.getServerCACertPath(),
          "TLS server CA certificate",
          "TEMPORAL_TLS_SERVER_CA_CERT_PATH / tls.server_ca_cert_path");
      boolean cert = !isBlank(tls.getClientCertPath()) || hasData(tls.getClientCertData());
      boolean key = !isBlank(tls.getClientKeyPath()) || hasData(tls.getClientKeyData());
      if (cert != key) {
        throw new CliException(
            ExitCodes.USAGE,
            "A TLS client certificate needs its key and the other way round: set both"
                + " TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or the profile's"
                + " tls.client_cert_path and tls.client_key_path).");
      }
    }

    private static void requireFile(String path, String what, String setting) {
      if (!isBlank(path) && !Files.isReadable(Path.of(path))) {
        throw new CliException(
            ExitCodes.USAGE, what + " not found: " + path + " (" + setting + ").");
      }
    }

    private static boolean hasData(byte[] data) {
      return data != null && data.length > 0;
    }

    /** Where the Temporal CLI and SDKs look for {@code temporal.toml} when it is not named. */
    private Path defaultConfigFile() {
      String home = System.getProperty("user.home");
      if (isBlank(home)) {
        return null;
      }
      String os = System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT);
      if (os.contains("mac")) {
        return Path.of(home, "Library", "Application Support", "temporalio", "temporal.toml");
      }
      if (os.contains("win")) {
        String appData = env.get("APPDATA");
        return appData == null ? null : Path.of(appData, "temporalio", "temporal.toml");
      }
      return Path.of(home, ".config", "temporalio", "temporal.toml");
    }
  }
}
