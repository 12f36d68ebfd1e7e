package io.durableagents.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Timer;
import java.util.TimerTask;

/**
 * Prints one hint on stderr when a command waits long for a session: most often no worker is
 * polling its task queue. The command keeps waiting.
 */
final class WaitHint {
  private final Timer timer = new Timer("agents-wait-hint", true);

  private WaitHint() {}

  /** Schedules the hint {@code delay} from now, naming what the command waits for. */
  static WaitHint after(
      Duration delay, String waitingFor, PrintWriter err, ConnectionOptions connection) {
    WaitHint hint = new WaitHint();
    hint.timer.schedule(
        new TimerTask() {
          @Override
          public void run() {
            err.println(
                "Still waiting for "
                    + waitingFor
                    + "... is a worker polling task queue '"
                    + connection.taskQueue()
                    + "' on "
                    + connection.temporal()
                    + "? (start one with './agents worker' or './agents dev')");
            err.flush();
          }
        },
        delay.toMillis());
    return hint;
  }

  void cancel() {
    timer.cancel();
  }
}
