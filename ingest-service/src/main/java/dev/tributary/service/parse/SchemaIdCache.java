package dev.tributary.service.parse;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

/**
 * The per-schema-id cache of the Confluent-framed decoders: each writer schema id is compiled once
 * (by the compiler given at construction) and its outcome, usable or the reason its records are
 * quarantined, kept; an outcome that may change (an id the registry did not know) is compiled again
 * after a minute. The last usable entry is checked first: most topics carry one schema at a time,
 * so the hot path is one comparison instead of a boxed map lookup.
 *
 * <p>Thread-safe; a schema id may be compiled twice by racing threads, the results being equal.
 *
 * @param <C> the compiled entry
 */
public final class SchemaIdCache<C extends SchemaIdCache.Entry> {
  /** How long an unknown id is remembered before the registry is asked again. */
  private static final long UNKNOWN_RETRY_NANOS = 60_000_000_000L;

  /** A compiled schema id. */
  public interface Entry {
    /** The schema id. */
    int id();

    /** Whether records of this id can be decoded; false: they are quarantined. */
    boolean usable();

    /**
     * {@link System#nanoTime()} when compiling failed in a way worth retrying; 0: keep the outcome.
     */
    long failedAt();
  }

  private final IntFunction<C> compiler;
  private final ConcurrentHashMap<Integer, C> byId = new ConcurrentHashMap<>();
  private volatile C last;

  public SchemaIdCache(IntFunction<C> compiler) {
    this.compiler = compiler;
  }

  /** The entry of schema {@code id}, compiling it if it is not cached or its retry is due. */
  public C get(int id) {
    C c = last;
    if (c != null && c.id() == id) {
      return c;
    }
    c = byId.get(id);
    if (c == null || c.failedAt() != 0 && System.nanoTime() - c.failedAt() > UNKNOWN_RETRY_NANOS) {
      c = compiler.apply(id);
      byId.put(id, c);
    }
    if (c.usable()) {
      last = c;
    }
    return c;
  }
}
