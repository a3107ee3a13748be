package dev.tributary.service.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import dev.tributary.config.Durations;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Marker;

/**
 * Rate-limits warnings (and errors) that a library repeats: of each kind, the first one is logged,
 * then at most one per {@link #setInterval interval}, which says how many like it were left out
 * since the previous one. While a broker is down, Kafka's network client warns once a second
 * ("Connection to node -1 (localhost/127.0.0.1:9092) could not be established"); the pipeline's
 * state (DEGRADED, with the reason) says what matters, and one such line a minute is enough to see
 * that the client keeps trying.
 *
 * <p>Two warnings are of one kind when they come from the same logger at the same level and their
 * messages differ only in numbers (node ids, ports, correlation ids): a client's warnings about
 * another broker or another pipeline's client (another client id) are kinds of their own. Only
 * loggers under {@link #setLoggerPrefix prefix} ({@code org.apache.kafka} by default) are limited.
 *
 * <p>Installed in the logback configurations as {@code <turboFilter
 * class="dev.tributary.service.logging.RepeatedWarnings">} with optional {@code <loggerPrefix>} and
 * {@code <interval>} (a duration such as {@code 1 minute}). Thread-safe.
 */
public final class RepeatedWarnings extends TurboFilter {
  /** Beyond this many kinds the counts start over: a bound on memory, whatever the messages. */
  static final int MAX_KINDS = 1_000;

  private static final String FQCN = RepeatedWarnings.class.getName();

  /** Set while this filter logs its own summary line, which must pass. */
  private static final ThreadLocal<Boolean> SUMMARIZING = ThreadLocal.withInitial(() -> false);

  private final LongSupplier nanoTime;
  private final Map<String, Kind> kinds = new ConcurrentHashMap<>();
  private volatile String loggerPrefix = "org.apache.kafka";
  private volatile Duration interval = Duration.ofMinutes(1);

  /** A filter on the system's monotonic clock (the one logback instantiates). */
  public RepeatedWarnings() {
    this(System::nanoTime);
  }

  /** A filter on {@code nanoTime} (tests). */
  RepeatedWarnings(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /** Only loggers whose name starts with this are limited (logback configuration property). */
  public void setLoggerPrefix(String prefix) {
    this.loggerPrefix = prefix;
  }

  /**
   * At most one warning of a kind per this duration, e.g. {@code 1 minute} (logback configuration
   * property).
   */
  public void setInterval(String duration) {
    Duration parsed = Durations.parse(duration);
    if (parsed.isNegative() || parsed.isZero()) {
      throw new IllegalArgumentException(
          "the interval of RepeatedWarnings must be positive, was '" + duration + "'");
    }
    this.interval = parsed;
  }

  @Override
  public FilterReply decide(
      Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    // Called for every logging call of the process, enabled or not: the common case returns at
    // once.
    if (format == null
        || level == null
        || level.levelInt < Level.WARN_INT
        || !logger.getName().startsWith(loggerPrefix)
        || !level.isGreaterOrEqual(logger.getEffectiveLevel())
        || SUMMARIZING.get()) {
      return FilterReply.NEUTRAL;
    }
    if (kinds.size() > MAX_KINDS) {
      kinds.clear();
    }
    Kind kind =
        kinds.computeIfAbsent(
            logger.getName() + "|" + level + "|" + shape(format), k -> new Kind());
    long now = nanoTime.getAsLong();
    long left;
    long since;
    synchronized (kind) {
      if (kind.loggedAt != Long.MIN_VALUE && now - kind.loggedAt < interval.toNanos()) {
        kind.left++;
        return FilterReply.DENY;
      }
      left = kind.left;
      since = kind.loggedAt;
      kind.left = 0;
      kind.loggedAt = now;
    }
    if (left == 0) {
      return FilterReply.NEUTRAL;
    }
    // This one goes out with the count of those left out since the previous one: logged again
    // with the count appended, and the original refused.
    String summary =
        format
            + " [repeated "
            + left
            + " more time"
            + (left == 1 ? "" : "s")
            + " in the last "
            + Duration.ofNanos(now - since).toSeconds()
            + " s, not logged]";
    SUMMARIZING.set(true);
    try {
      logger.log(marker, FQCN, Level.toLocationAwareLoggerInteger(level), summary, params, t);
    } finally {
      SUMMARIZING.set(false);
    }
    return FilterReply.DENY;
  }

  /**
   * The message with every number (a run of digits, with its minus sign) replaced by {@code #}:
   * what makes warnings alike ({@code node -1} and {@code node 1} are one kind).
   */
  static String shape(String message) {
    StringBuilder out = new StringBuilder(message.length());
    boolean inDigits = false;
    for (int i = 0; i < message.length(); i++) {
      char c = message.charAt(i);
      boolean minus = c == '-' && i + 1 < message.length() && isDigit(message.charAt(i + 1));
      if (minus || isDigit(c)) {
        if (!inDigits) {
          out.append('#');
        }
        inDigits = true;
      } else {
        out.append(c);
        inDigits = false;
      }
    }
    return out.toString();
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** One kind of warning: when one was last logged and how many were left out since. */
  private static final class Kind {
    long loggedAt = Long.MIN_VALUE;
    long left;
  }
}
