package io.durableagents.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth;
import io.grpc.protobuf.services.HealthStatusManager;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS settings over a real TLS connection: a gRPC server on loopback with the test certificate
 * ({@code temporal.test}, its own CA) stands in for Temporal Cloud's frontend, which this build
 * cannot reach. It serves the health check and records what each call presented.
 */
class ConnectionSettingsTlsTest {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  @TempDir Path dir;
  private Server server;
  private final AtomicReference<String> authorization = new AtomicReference<>();
  private final AtomicReference<String> clientCertificate = new AtomicReference<>();

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  private static File resource(String name) throws Exception {
    return new File(ConnectionSettingsTlsTest.class.getResource("/tls/" + name).toURI());
  }

  /** Starts the server; {@code refusal} non-null: every call is refused with it. */
  private String start(ClientAuth clientAuth, Status refusal) throws Exception {
    ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            authorization.set(headers.get(AUTHORIZATION));
            SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
            try {
              Certificate[] peer = session.getPeerCertificates();
              clientCertificate.set(
                  ((X509Certificate) peer[0]).getSubjectX500Principal().getName());
            } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
              clientCertificate.set(null);
            }
            if (refusal != null) {
              call.close(refusal, new Metadata());
              return new ServerCall.Listener<>() {};
            }
            return next.startCall(call, headers);
          }
        };
    HealthStatusManager health = new HealthStatusManager();
    health.setStatus(
        WorkflowServiceStubs.HEALTH_CHECK_SERVICE_NAME, HealthCheckResponse.ServingStatus.SERVING);
    server =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .sslContext(
                GrpcSslContexts.forServer(resource("client.pem"), resource("client.key"))
                    .trustManager(resource("client.pem"))
                    .clientAuth(clientAuth)
                    .build())
            .addService(health.getHealthService())
            .intercept(recorder)
            .build()
            .start();
    return "127.0.0.1:" + server.getPort();
  }

  private Map<String, String> env(String address, String... pairs) throws Exception {
    Path noProfiles = Files.writeString(dir.resolve("temporal.toml"), "");
    Map<String, String> env =
        new java.util.HashMap<>(
            Map.of(
                "TEMPORAL_CONFIG_FILE",
                noProfiles.toString(),
                "TEMPORAL_ADDRESS",
                address,
                "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
                resource("client.pem").getPath(),
                "TEMPORAL_TLS_SERVER_NAME",
                "temporal.test"));
    for (int i = 0; i < pairs.length; i += 2) {
      env.put(pairs[i], pairs[i + 1]);
    }
    return env;
  }

  @Test
  void clientCertificate_isPresentedInTheHandshake_whenTheServerRequiresIt() throws Exception {
    String address = start(ClientAuth.REQUIRE, null);
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(
            env(
                address,
                "TEMPORAL_TLS_CLIENT_CERT_PATH",
                resource("client.pem").getPath(),
                "TEMPORAL_TLS_CLIENT_KEY_PATH",
                resource("client.key").getPath()));

    WorkflowServiceStubs stubs = settings.connect();
    stubs.shutdownNow();

    assertThat(clientCertificate.get()).isEqualTo("CN=temporal.test");
    assertThat(authorization.get()).isNull();
  }

  @Test
  void apiKey_travelsAsABearerTokenOverTls_andARefusalIsOneClearError() throws Exception {
    String address =
        start(ClientAuth.NONE, Status.UNAUTHENTICATED.withDescription("invalid API key"));
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(env(address, "TEMPORAL_API_KEY", "test-key"));

    assertThatThrownBy(settings::connect)
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.ERROR))
        .hasMessage(
            "Temporal at "
                + address
                + " refused the credentials (UNAUTHENTICATED: invalid API key): check the"
                + " API key (TEMPORAL_API_KEY, --api-key-file) or the client certificate.");
    assertThat(authorization.get()).isEqualTo("Bearer test-key");
  }

  @Test
  void aServerCertificateOfAnotherName_isRefusedInTheHandshake() throws Exception {
    String address = start(ClientAuth.NONE, null);
    ConnectionSettings settings =
        ConnectionSettings.fromEnvironment(env(address, "TEMPORAL_TLS_SERVER_NAME", "other.test"));

    assertThatThrownBy(settings::connect)
        .isInstanceOfSatisfying(
            CliException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.ERROR))
        .hasMessageStartingWith("Cannot reach Temporal at " + address + " over TLS (");
    assertThat(authorization.get()).isNull();
  }
}
