package io.durableagents.workflow.internal;

import io.durableagents.workflow.internal.activity.SessionClose;
import io.durableagents.workflow.internal.wire.CloseRequest;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * The end of a session's workflow, once no run is in progress and no accepted send waits: the
 * waiting entries are written, the worker marks the session closed in the store (or removes its
 * rows, for a delete), the session shows as closed, and every handler finishes before the workflow
 * method returns.
 */
final class SessionClosing {
  private static final Logger log = Workflow.getLogger(SessionClosing.class);

  private final Session session;

  SessionClosing(Session session) {
    this.session = session;
  }

  void close() {
    CloseRequest request = session.lifecycle.request();
    session.checkpoints.flush();
    session
        .stubs
        .lifecycle()
        .closeSession(
            new SessionClose(
                session.id(),
                Workflow.getInfo().getFirstExecutionRunId(),
                Workflow.currentTimeMillis(),
                request.delete(),
                request.keepHistory()));
    session.lifecycle.closed();
    session.show();
    log.info("{} closed: {}", session.id(), request.reason());
    Workflow.await(Workflow::isEveryHandlerFinished);
  }
}
