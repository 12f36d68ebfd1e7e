package io.durableagents.client.internal;

import io.durableagents.client.AgentClientException;

/**
 * A send refused because the session is closing; the client waits for its workflow to complete and
 * sends again, which starts the session again. Reaches callers only when that keeps failing.
 */
public final class SessionClosingException extends AgentClientException {
  private static final long serialVersionUID = 1L;

  SessionClosingException(String message, Throwable cause) {
    super(message, cause);
  }
}
