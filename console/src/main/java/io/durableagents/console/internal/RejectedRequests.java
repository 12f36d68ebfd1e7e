package io.durableagents.console.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answer to requests the HTTP server refuses before any route sees them (a URI too long, a path
 * with {@code %00}, a malformed request line): the API's JSON error body, with the console's
 * security headers, rather than Jetty's HTML page. Every path gets it, pages too: the request was
 * not understood, so it is not known to be a page's.
 */
public final class RejectedRequests extends ErrorHandler {
  private final ObjectMapper json;

  public RejectedRequests(ObjectMapper json) {
    this.json = json;
  }

  /** Every such refusal: Jetty's {@code handle} has set the status, and skips bodiless ones. */
  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int status,
      String message,
      Throwable cause,
      Callback callback) {
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    Pages.SECURITY_HEADERS.forEach(response.getHeaders()::put);
    response.write(true, ByteBuffer.wrap(body(status, message)), callback);
  }

  private byte[] body(int status, String reason) {
    String message = reason == null || reason.isBlank() ? HttpStatus.getMessage(status) : reason;
    try {
      return json.writeValueAsBytes(ApiException.of(status, message).body());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // a map of strings always serializes
    }
  }
}
