package io.durableagents.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** Real HTTP calls to a console: requests as a browser or an API client would send them. */
final class Http {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI base;

  Http(AgentConsole console) {
    this.base = console.url();
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT);
  }

  /** {@code path} with {@code headers} given as name, value, name, value... */
  HttpResponse<String> get(String path, String... headers) {
    return send(withHeaders(request(path).GET(), headers));
  }

  /** A JSON post, as an API client (or the pages' scripts) sends one. */
  HttpResponse<String> post(String path, String json, String... headers) {
    HttpRequest.Builder request =
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    return send(withHeaders(request, headers));
  }

  /** The status, headers (names in lower case) and body of an answer read off a raw socket. */
  record RawResponse(int status, Map<String, String> headers, String body) {}

  /**
   * A JSON post that announces {@code contentLength} bytes but sends only {@code bodyStart}, on a
   * raw socket: the console must refuse an oversized body from its length, before reading it.
   * (java.net.http cannot do this reliably: a full body races the server's early answer and close,
   * and on Java 17 its {@code Expect: 100-continue} waits forever for a refusal.)
   */
  RawResponse postAnnouncing(String path, long contentLength, String bodyStart) throws IOException {
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout((int) TIMEOUT.toMillis());
      OutputStream out = socket.getOutputStream();
      String head =
          "POST "
              + path
              + " HTTP/1.1\r\nHost: "
              + base.getHost()
              + ":"
              + base.getPort()
              + "\r\nContent-Type: application/json\r\nContent-Length: "
              + contentLength
              + "\r\nConnection: close\r\n\r\n";
      out.write((head + bodyStart).getBytes(StandardCharsets.UTF_8));
      out.flush();
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String statusLine = in.readLine();
      if (statusLine == null) {
        throw new IOException("no answer to " + path);
      }
      // "HTTP/1.1 413 Payload Too Large"
      int status = Integer.parseInt(statusLine.substring(9, 12));
      Map<String, String> headers = new LinkedHashMap<>();
      for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
        int colon = line.indexOf(':');
        headers.put(
            line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
            line.substring(colon + 1).strip());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "-1"));
      if (length < 0) {
        throw new IOException("expected a Content-Length in " + headers);
      }
      char[] body = new char[length];
      int read = 0;
      while (read < length) {
        int n = in.read(body, read, length - read);
        if (n < 0) {
          break;
        }
        read += n;
      }
      return new RawResponse(status, headers, new String(body, 0, read));
    }
  }

  HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    try {
      return client.send(request, handler);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static HttpRequest.Builder withHeaders(HttpRequest.Builder request, String... headers) {
    if (headers.length % 2 != 0) {
      throw new IllegalArgumentException("headers come in name, value pairs");
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return request;
  }

  static JsonNode json(HttpResponse<String> response) {
    try {
      return JSON.readTree(response.body());
    } catch (JsonProcessingException e) {
      throw new AssertionError("not JSON (" + response.statusCode() + "): " + response.body(), e);
    }
  }

  static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
