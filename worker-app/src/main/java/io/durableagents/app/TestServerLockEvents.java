package io.durableagents.app;

import io.temporal.internal.testservice.TestServicesStarter;
import java.lang.reflect.Field;
import java.util.LinkedList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the embedded test server's time-lock event log from growing without bound.
 *
 * <p>The test server ({@code temporal-testing} 1.38) appends an event to a {@code LinkedList} for
 * every time-skipping lock and unlock, "for debugging purposes only", and removes only the events
 * of lock handles, searching from the head. Locks taken and released through request contexts
 * (every workflow and activity task) are never removed, so the list grows with every task the
 * server has ever handled, and every timer callback and task completion scans it. After a few
 * minutes of load the scans were 38% of the CPU samples of {@code ./agents bench}, and a long
 * {@code ./agents dev} session slows down for as long as it runs.
 *
 * <p>The list only feeds the server's diagnostics message for unbalanced locks, so it is replaced
 * by one that keeps nothing. This reaches into the server's internals by reflection: if they
 * change, nothing is replaced and the server runs as shipped (a debug line says so).
 */
final class TestServerLockEvents {
  private static final Logger log = LoggerFactory.getLogger(TestServerLockEvents.class);

  private TestServerLockEvents() {}

  /** Replaces the server's lock event log; answers whether it could. */
  static boolean stopRecording(TestServicesStarter services) {
    try {
      Object timer = read(services, "selfAdvancingTimer");
      Field events = timer.getClass().getDeclaredField("lockEvents");
      if (events.getType() != LinkedList.class) {
        return false;
      }
      events.setAccessible(true);
      events.set(timer, new DiscardingList());
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("the test server's lock event log is left as it is: {}", e.toString());
      return false;
    }
  }

  private static Object read(Object owner, String name) throws ReflectiveOperationException {
    Field field = owner.getClass().getDeclaredField(name);
    field.setAccessible(true);
    return field.get(owner);
  }

  /** Keeps no event; every removal succeeds, as the server expects of a balanced unlock. */
  // A LinkedList because that is the type of the test server's field this replaces.
  @SuppressWarnings("JdkObsolete")
  private static final class DiscardingList extends LinkedList<Object> {
    private static final long serialVersionUID = 1L;

    @Override
    public boolean add(Object event) {
      return true;
    }

    @Override
    public boolean remove(Object event) {
      return true;
    }
  }
}
