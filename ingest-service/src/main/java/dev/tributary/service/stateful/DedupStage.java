package dev.tributary.service.stateful;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Feeds rows to a {@link Deduplicator} a chunk at a time, with the state work of one chunk (key
 * encoding, one batched lookup, one batched write) on a worker thread while the caller parses the
 * next chunk: on two cores this takes the state store off the critical path. Chunks are
 * deduplicated strictly in order, one at a time, and handed back in order, so the result is exactly
 * that of deduplicating row by row.
 *
 * <p>Used from one thread. The deduplicator's state store is touched only by the worker while a
 * chunk is in flight; {@link #drain()}, {@link #awaitIdle()} and {@link #begin} wait for it, so
 * afterwards the caller may use the store again.
 */
final class DedupStage implements AutoCloseable {
  /** A deduplicated chunk: {@code first[i]} tells whether {@code rows[i]} goes on. */
  record Done(Object[][] rows, int size, boolean[] first) {}

  private record InFlight(Object[][] rows, int size, Future<boolean[]> first) {}

  private final int chunkSize;
  private final ExecutorService worker;
  private Deduplicator dedup;
  private Object[][] rows;
  private long[] times;
  private int size;
  private InFlight inFlight;

  DedupStage(int chunkSize) {
    this.chunkSize = chunkSize;
    this.worker =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "tributary-dedup");
              t.setDaemon(true);
              return t;
            });
    newChunk();
  }

  /** Starts a batch on {@code dedup}, dropping whatever an earlier, failed batch left. */
  void begin(Deduplicator dedup) {
    awaitIdle();
    this.dedup = dedup;
    newChunk();
  }

  /** Adds a row; returns the previous chunk once it is deduplicated, else null. */
  Done add(Object[] row, long eventTimeMicros) throws IOException {
    rows[size] = row;
    times[size++] = eventTimeMicros;
    return size == chunkSize ? submit() : null;
  }

  /** Deduplicates everything added so far; returns the chunks not yet returned, in order. */
  List<Done> drain() throws IOException {
    List<Done> done = new ArrayList<>(2);
    if (size > 0) {
      Done previous = submit();
      if (previous != null) {
        done.add(previous);
      }
    }
    if (inFlight != null) {
      InFlight last = inFlight;
      inFlight = null;
      done.add(new Done(last.rows(), last.size(), await(last.first())));
    }
    return done;
  }

  private Done submit() throws IOException {
    Object[][] chunkRows = rows;
    long[] chunkTimes = times;
    int n = size;
    Deduplicator target = dedup;
    newChunk();
    InFlight previous = inFlight;
    inFlight =
        new InFlight(
            chunkRows, n, worker.submit(() -> target.firstOccurrences(chunkRows, chunkTimes, n)));
    return previous == null
        ? null
        : new Done(previous.rows(), previous.size(), await(previous.first()));
  }

  private void newChunk() {
    rows = new Object[chunkSize][];
    times = new long[chunkSize];
    size = 0;
  }

  private static boolean[] await(Future<boolean[]> first) throws IOException {
    try {
      return first.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while deduplicating");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      } else if (cause instanceof Error err) {
        throw err;
      }
      throw new IOException(cause.getMessage(), cause);
    }
  }

  /**
   * Waits for a chunk in flight, ignoring its outcome (its batch is being abandoned): afterwards
   * nothing touches the deduplicator's state store.
   */
  void awaitIdle() {
    if (inFlight == null) {
      return;
    }
    try {
      inFlight.first().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException ignored) {
      // the failed batch already reported its error, or is being retried
    }
    inFlight = null;
  }

  @Override
  public void close() {
    awaitIdle();
    worker.shutdownNow();
  }
}
