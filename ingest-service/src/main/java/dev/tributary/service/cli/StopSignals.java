package dev.tributary.service.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * SIGTERM and SIGINT (Ctrl-C) for a long-running command: the first one runs the command's graceful
 * stop (the batch in progress finishes, then the command ends and the process exits 0); a second
 * one ends the process at once with 128 + the signal's number, as the JVM's own handler does (the
 * batch in progress is left for the next start to replay). {@link #close()} gives the JVM its own
 * handlers back.
 *
 * <p>Why a signal handler rather than only a shutdown hook: once a signal has started the JVM's
 * shutdown, the exit status is 128 + the signal's number (143 for SIGTERM) whatever the hooks do,
 * and the documented exit code of a graceful stop is 0. {@code sun.misc.Signal} (module {@code
 * jdk.unsupported}) is the JDK's only way to handle a signal; where it is refused (another
 * platform, a signal the JVM reserves), the JVM's default stays and the command still stops
 * gracefully through its shutdown hook, with 143.
 */
final class StopSignals implements AutoCloseable {
  private static final String[] SIGNALS = {"TERM", "INT"};

  private final Map<Signal, SignalHandler> previous = new LinkedHashMap<>();
  private final AtomicBoolean asked = new AtomicBoolean();
  private volatile boolean forced;

  private StopSignals() {}

  /**
   * Handles SIGTERM and SIGINT until {@link #close()}: the first runs {@code gracefulStop} (on the
   * signal's own thread; it may block), a second exits at once.
   */
  static StopSignals install(Runnable gracefulStop, PrintStream err) {
    StopSignals signals = new StopSignals();
    SignalHandler handler =
        signal -> {
          String name = "SIG" + signal.getName().toUpperCase(Locale.ROOT);
          if (signals.asked.compareAndSet(false, true)) {
            err.println(
                "tributary: "
                    + name
                    + " received: stopping after the batch in progress (send it again to stop at"
                    + " once; the next start replays that batch)");
            err.flush();
            gracefulStop.run();
          } else {
            signals.forced = true;
            System.exit(128 + signal.getNumber());
          }
        };
    for (String name : SIGNALS) {
      try {
        Signal signal = new Signal(name);
        signals.previous.put(signal, Signal.handle(signal, handler));
      } catch (IllegalArgumentException | UnsupportedOperationException refused) {
        // not on this platform, or reserved by the JVM (-Xrs): its default handler stays
      }
    }
    return signals;
  }

  /** Whether a second signal asked to end the process at once (a shutdown hook must not wait). */
  boolean forced() {
    return forced;
  }

  /** Restores the handlers that were in place before {@link #install}. */
  @Override
  public void close() {
    previous.forEach(
        (signal, handler) -> {
          try {
            Signal.handle(signal, handler);
          } catch (IllegalArgumentException ignored) {
            // it was accepted when installed; nothing else to restore
          }
        });
  }
}
