package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.temporal.serviceclient.GrpcMetadataProvider;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConnectionSettingsTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  @TempDir Path dir;
  private Path configFile;

  @BeforeEach
  void noProfiles() throws IOException {
    // Every test names its config file, so none reads the temporal.toml of the machine's user.
    configFile = Files.writeString(dir.resolve("temporal.toml"), "# no profiles\n");
  }

  private Map<String, String> env(String... pairs) {
    Map<String, String> env = new HashMap<>();
    env.put("TEMPORAL_CONFIG_FILE", configFile.toString());
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  private void writeConfig(String toml) throws IOException {
    Files.writeString(configFile, toml);
  }

  private static Path resource(String name) throws URISyntaxException {
    return Path.of(ConnectionSettingsTest.class.getResource("/tls/" + name).toURI());
  }

  private static String authorization(WorkflowServiceStubsOptions options) {
    for (GrpcMetadataProvider provider : options.getGrpcMetadataProviders()) {
      String value = provider.getMetadata().get(AUTHORIZATION);
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  @Test
  void nothingSet_isAPlainConnectionToTheLocalDefault() {
    ConnectionSettings settings = ConnectionSettings.fromEnvironment(env());

    assertThat(settings.address()).isEqualTo("127.0.0.1:7233");
    assertThat(settings.namespace()).isEqualTo("default");
    assertThat(settings.tls()).isFalse();
    assertThat(settings.hasApiKey()).isFalse();
    assertThat(settings.serviceStubsOptions().getTarget()).isEqualTo("127.0.0.1:7233");
    assertThat(settings.clientOptions().getNamespace()).isEqualTo("default");
    assertThat(settings).isEqualTo(ConnectionSettings.plain("127.0.0.1:7233", "default"));
  }

  @Test
  void aPortOutOfRange_isAUsageError_fromEverySource_beforeGrpcSeesIt() throws IOException {
    for (String address :
        new String[] {
          "127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:0", "127.0.0.1:", "[::1]:70000"
        }) {
      assertThatThrownBy(() -> ConnectionSettings.newBuilder(env()).setAddress(address).build())
          .as(address)
          .isInstanceOfSatisfying(
              CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
          .hasMessage(
              "Invalid Temporal address '"
                  + address
                  + "': expected HOST:PORT with a port of 1-65535.");
    }
    assertThatThrownBy(
            () -> ConnectionSettings.fromEnvironment(env("TEMPORAL_ADDRESS", "localhost:123456")))
        .hasMessageContaining("'localhost:123456'");
    writeConfig("[profile.default]\naddress = \"temporal.internal:100000\"\n");
    assertThatThrownBy(() -> ConnectionSettings.fromEnvironment(env()))
        .hasMessageContaining("'temporal.internal:100000'");

    for (String address :
        new String[] {
          "127.0.0.1:1", "127.0.0.1:65535", "[::1]:7233", "dns:///temporal:7233", "temporal"
        }) {
      assertThat(ConnectionSettings.newBuilder(env()).setAddress(address).build().address())
          .isEqualTo(address);
    }
  }

  @Test
  void environmentOnly_setsAddressAndNamespace_blankValuesCountAsUnset() {
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(
            env(
                "TEMPORAL_ADDRESS",
                " temporal.internal:7233 ",
                "TEMPORAL_NAMESPACE",
                "agents-prod",
                "TEMPORAL_API_KEY",
                " "));

    assertThat(settings.address()).isEqualTo("temporal.internal:7233");
    assertThat(settings.serviceStubsOptions().getTarget()).isEqualTo("temporal.internal:7233");
    assertThat(settings.namespace()).isEqualTo("agents-prod");
    assertThat(settings.clientOptions().getNamespace()).isEqualTo("agents-prod");
    assertThat(settings.hasApiKey()).isFalse();
    assertThat(settings.tls()).isFalse();
  }

  @Test
  void profile_comesFromTemporalToml_andTheEnvironmentOverridesIt() throws IOException {
    writeConfig(
        """
        [profile.default]
        address = "local.example:7233"

        [profile.prod]
        address = "prod.example:7233"
        namespace = "agents-prod"
        """);

    assertThat(ConnectionSettings.fromEnvironment(env()).address()).isEqualTo("local.example:7233");

    ConnectionSettings prod = ConnectionSettings.fromEnvironment(env("TEMPORAL_PROFILE", "prod"));
    assertThat(prod.address()).isEqualTo("prod.example:7233");
    assertThat(prod.namespace()).isEqualTo("agents-prod");

    ConnectionSettings overridden =
        ConnectionSettings.fromEnvironment(
            env("TEMPORAL_PROFILE", "prod", "TEMPORAL_NAMESPACE", "agents-staging"));
    assertThat(overridden.address()).isEqualTo("prod.example:7233");
    assertThat(overridden.namespace()).isEqualTo("agents-staging");
  }

  @Test
  void options_winOverTheEnvironmentAndTheProfile() throws IOException {
    writeConfig(
        """
        [profile.prod]
        address = "prod.example:7233"
        namespace = "agents-prod"

        [profile.staging]
        address = "staging.example:7233"
        """);
    Map<String, String> env =
        env("TEMPORAL_PROFILE", "prod", "TEMPORAL_ADDRESS", "env.example:7233");

    assertThat(ConnectionSettings.fromEnvironment(env).address()).isEqualTo("env.example:7233");
    ConnectionSettings settings =
        ConnectionSettings.newBuilder(env)
            .setProfile("staging")
            .setAddress("flag.example:7233")
            .setNamespace("from-flag")
            .build();
    assertThat(settings.address()).isEqualTo("flag.example:7233");
    assertThat(settings.namespace()).isEqualTo("from-flag");
    assertThat(
            ConnectionSettings.newBuilder(env("TEMPORAL_PROFILE", "prod"))
                .setProfile("staging")
                .build()
                .address())
        .isEqualTo("staging.example:7233");
  }

  @Test
  void apiKey_turnsTlsOn_andIsSentAsABearerToken() {
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(
            env(
                "TEMPORAL_ADDRESS",
                "us-east-1.aws.api.temporal.io:7233",
                "TEMPORAL_NAMESPACE",
                "agents.a1b2c",
                "TEMPORAL_API_KEY",
                "secret-key"));

    assertThat(settings.hasApiKey()).isTrue();
    assertThat(settings.tls()).isTrue();
    assertThat(settings.serviceStubsOptions().getEnableHttps()).isTrue();
    assertThat(authorization(settings.serviceStubsOptions())).isEqualTo("Bearer secret-key");
    assertThat(settings.toString()).doesNotContain("secret-key");
    assertThat(settings.describe())
        .isEqualTo("us-east-1.aws.api.temporal.io:7233 (namespace agents.a1b2c, TLS, API key)");
  }

  @Test
  void apiKeyFile_winsOverTheVariable() throws IOException {
    Path keyFile = Files.writeString(dir.resolve("api-key"), "file-key\n");

    ConnectionSettings settings =
        ConnectionSettings.newBuilder(env("TEMPORAL_API_KEY", "env-key"))
            .setApiKeyFile(keyFile)
            .build();

    assertThat(authorization(settings.serviceStubsOptions())).isEqualTo("Bearer file-key");
    assertThat(settings.tls()).isTrue();
  }

  @Test
  void apiKey_withTlsDisabledInTheProfile_staysPlain() throws IOException {
    writeConfig(
        """
        [profile.default]
        api_key = "local-key"
        [profile.default.tls]
        disabled = true
        """);

    ConnectionSettings settings = ConnectionSettings.fromEnvironment(env());

    assertThat(settings.hasApiKey()).isTrue();
    assertThat(settings.tls()).isFalse();
    assertThat(authorization(settings.serviceStubsOptions())).isEqualTo("Bearer local-key");
    assertThat(settings.describe()).isEqualTo("127.0.0.1:7233 (API key, no TLS)");
  }

  @Test
  void clientCertificate_buildsAnSslContext_withTheServerCaAndName() throws Exception {
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(
            env(
                "TEMPORAL_ADDRESS", "agents.a1b2c.tmprl.cloud:7233",
                "TEMPORAL_TLS_CLIENT_CERT_PATH", resource("client.pem").toString(),
                "TEMPORAL_TLS_CLIENT_KEY_PATH", resource("client.key").toString(),
                "TEMPORAL_TLS_SERVER_CA_CERT_PATH", resource("ca.pem").toString(),
                "TEMPORAL_TLS_SERVER_NAME", "temporal.internal"));

    assertThat(settings.tls()).isTrue();
    assertThat(settings.serviceStubsOptions().getSslContext()).isNotNull();
    assertThat(settings.serviceStubsOptions().getSslContext().isClient()).isTrue();
    assertThat(settings.serviceStubsOptions().getChannelInitializer()).isNotNull();
    assertThat(settings.hasApiKey()).isFalse();
    assertThat(settings.describe()).isEqualTo("agents.a1b2c.tmprl.cloud:7233 (TLS)");
  }

  @Test
  void clientCertificate_fromTheProfile() throws Exception {
    writeConfig(
        """
        [profile.cloud]
        address = "agents.a1b2c.tmprl.cloud:7233"
        namespace = "agents.a1b2c"
        [profile.cloud.tls]
        client_cert_path = "%s"
        client_key_path = "%s"
        """
            .formatted(resource("client.pem"), resource("client.key")));

    ConnectionSettings settings = ConnectionSettings.newBuilder(env()).setProfile("cloud").build();

    assertThat(settings.namespace()).isEqualTo("agents.a1b2c");
    assertThat(settings.serviceStubsOptions().getSslContext()).isNotNull();
  }

  @Test
  void tlsOption_turnsTlsOnWithoutCertificates() {
    ConnectionSettings settings = ConnectionSettings.newBuilder(env()).setTls(true).build();

    assertThat(settings.tls()).isTrue();
    assertThat(settings.serviceStubsOptions().getSslContext()).isNotNull();
    assertThat(ConnectionSettings.fromEnvironment(env("TEMPORAL_TLS", "true")).tls()).isTrue();
  }

  @Test
  void missingTlsFile_isAUsageErrorNamingItAndItsSetting() throws Exception {
    Path missing = dir.resolve("nope.pem");

    assertThatThrownBy(
            () ->
                ConnectionSettings.fromEnvironment(
                    env(
                        "TEMPORAL_TLS_CLIENT_CERT_PATH", missing.toString(),
                        "TEMPORAL_TLS_CLIENT_KEY_PATH", resource("client.key").toString())))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessage(
            "TLS client certificate not found: "
                + missing
                + " (TEMPORAL_TLS_CLIENT_CERT_PATH / tls.client_cert_path).");
    assertThatThrownBy(
            () ->
                ConnectionSettings.fromEnvironment(
                    env("TEMPORAL_TLS_SERVER_CA_CERT_PATH", missing.toString())))
        .hasMessageStartingWith("TLS server CA certificate not found: " + missing);
  }

  @Test
  void certificateWithoutKey_isAUsageError() throws Exception {
    assertThatThrownBy(
            () ->
                ConnectionSettings.fromEnvironment(
                    env("TEMPORAL_TLS_CLIENT_CERT_PATH", resource("client.pem").toString())))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessageContaining("needs its key");
  }

  @Test
  void garbageCertificate_isAUsageError() throws Exception {
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate");

    assertThatThrownBy(
            () ->
                ConnectionSettings.fromEnvironment(
                    env(
                        "TEMPORAL_TLS_CLIENT_CERT_PATH", garbage.toString(),
                        "TEMPORAL_TLS_CLIENT_KEY_PATH", resource("client.key").toString())))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessageStartingWith("Invalid TLS settings: ");
  }

  @Test
  void unknownProfile_namesTheProfilesThere() throws IOException {
    writeConfig(
        "[profile.prod]\naddress = \"prod.example:7233\"\n[profile.staging]\naddress = \"s:7233\"\n");

    assertThatThrownBy(() -> ConnectionSettings.fromEnvironment(env("TEMPORAL_PROFILE", "pord")))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessage(
            "No Temporal profile 'pord' (from TEMPORAL_PROFILE) in "
                + configFile
                + "; it has: prod, staging.");
    assertThatThrownBy(() -> ConnectionSettings.newBuilder(env()).setProfile("pord").build())
        .hasMessageStartingWith("No Temporal profile 'pord' (from --profile)");
  }

  @Test
  void namedConfigFileThatDoesNotExist_isAUsageError() {
    Path missing = dir.resolve("missing.toml");

    assertThatThrownBy(
            () ->
                ConnectionSettings.fromEnvironment(
                    Map.of("TEMPORAL_CONFIG_FILE", missing.toString())))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessage("Temporal config file not found: " + missing + " (from TEMPORAL_CONFIG_FILE).");
  }

  @Test
  void malformedConfigFile_isAUsageErrorWithTheLine() throws IOException {
    writeConfig("[profile.prod]\naddress = \"prod.example:7233\n");

    assertThatThrownBy(() -> ConnectionSettings.fromEnvironment(env()))
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessageStartingWith("Cannot read the Temporal config file " + configFile + ": ")
        .hasMessageContaining("(line 2, column ");
  }

  @Test
  void missingApiKeyFile_isAUsageError() {
    Path missing = dir.resolve("api-key");

    assertThatThrownBy(() -> ConnectionSettings.newBuilder(env()).setApiKeyFile(missing).build())
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessageStartingWith("Cannot read the API key file " + missing + " (--api-key-file)");
  }

  @Test
  void unreachableServer_failsInSecondsNamingTheAddressAndHowToStartOne() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String address = "127.0.0.1:" + closedPort;
    long start = System.nanoTime();

    assertThatThrownBy(() -> ConnectionSettings.plain(address, "default").connect())
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.ERROR))
        .hasMessageStartingWith("Cannot reach Temporal at " + address + " (")
        .hasMessageContaining("start one with './agents dev'");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void aServerThatAcceptsButDoesNotAnswer_getsEveryHealthAttempt_beforeItIsUnreachable()
      throws Exception {
    // Accepts connections (the kernel's backlog) but never speaks: each health call times out.
    try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + silent.getLocalPort();
      long start = System.nanoTime();

      assertThatThrownBy(() -> ConnectionSettings.plain(address, "default").connect())
          .isInstanceOf(CliException.class)
          .hasMessageStartingWith("Cannot reach Temporal at " + address + " (DEADLINE_EXCEEDED");
      // Three attempts of the SDK's 5 s deadline: a slow server is not given up after the first.
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofSeconds(10));
    }
  }

  @Test
  void invalidAddress_isAUsageError() {
    assertThatThrownBy(() -> ConnectionSettings.plain("not an address", "default").connect())
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
        .hasMessage("Invalid Temporal address 'not an address': expected HOST:PORT.");
  }
}
