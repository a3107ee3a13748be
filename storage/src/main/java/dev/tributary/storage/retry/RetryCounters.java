package dev.tributary.storage.retry;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The retries of each retry site in this process, by site name ({@link RetryPolicy#site()}): how
 * many times an attempt was followed by another. A site appears, with zero, as soon as a policy
 * naming it is built, so that dashboards see a flat line rather than a missing series. The service
 * publishes these as the counter {@code tributary.retries} tagged {@code site}.
 *
 * <p>Process-wide on purpose: the sites are code paths (a fixed, small set of names), not pipelines
 * or objects, and the stores and tables they run in are shared between pipelines.
 */
public final class RetryCounters {
  private static final Pattern SITE = Pattern.compile("[a-z0-9]+([.-][a-z0-9]+)*");
  private static final Map<String, LongAdder> RETRIES = new ConcurrentHashMap<>();
  private static final List<Consumer<String>> WATCHERS = new CopyOnWriteArrayList<>();

  private RetryCounters() {}

  /** Every site seen so far with its retries, sorted by site. */
  public static Map<String, Long> snapshot() {
    Map<String, Long> out = new TreeMap<>();
    RETRIES.forEach((site, count) -> out.put(site, count.sum()));
    return out;
  }

  /** The retries of {@code site} so far; 0 for a site never seen. */
  public static long retries(String site) {
    LongAdder count = RETRIES.get(site);
    return count == null ? 0 : count.sum();
  }

  /**
   * Calls {@code watcher} with every site seen so far and then with each new site as it appears (on
   * the thread that builds its first policy), exactly once per site, until the returned handle is
   * closed. Used to register one meter per site.
   */
  public static AutoCloseable watch(Consumer<String> watcher) {
    synchronized (RetryCounters.class) {
      WATCHERS.add(watcher);
      RETRIES.keySet().forEach(watcher);
    }
    return () -> WATCHERS.remove(watcher);
  }

  /**
   * Makes {@code site} known, with zero retries, and tells the watchers. {@link RetryPolicy} does
   * this for its site; call it directly only for retries a library runs itself (the AWS SDK's),
   * which no policy sees.
   *
   * @throws IllegalArgumentException if the name is not dotted lowercase words (a metric tag must
   *     stay low-cardinality: never a path, key or id)
   */
  public static void declare(String site) {
    if (RETRIES.containsKey(site)) {
      return;
    }
    if (!SITE.matcher(site).matches()) {
      throw new IllegalArgumentException(
          "Retry site '"
              + site
              + "' is not a low-cardinality metric tag: use dotted lowercase words such as"
              + " delta.commit or s3.put-if-absent");
    }
    // Under the lock, so that a watcher sees each site exactly once, whenever it started watching.
    synchronized (RetryCounters.class) {
      if (RETRIES.putIfAbsent(site, new LongAdder()) == null) {
        WATCHERS.forEach(w -> w.accept(site));
      }
    }
  }

  /** Counts one retry of {@code site} (declaring it if new). */
  public static void retried(String site) {
    declare(site);
    RETRIES.get(site).increment();
  }
}
