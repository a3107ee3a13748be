package dev.tributary.service.parse;

import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Decodes a batch's inputs a chunk ahead on a worker thread while the caller's thread reads the
 * next records and runs the operators on the chunk before: on two cores this takes the decoding
 * (about half of a stateful pipeline's engine thread, issue 27) off the critical path. Order is
 * kept by construction: one worker decodes one chunk at a time, chunks are handed back in the order
 * they were filled, and within a chunk the results are in input order; the caller applies them in
 * that order, so every later step sees exactly the sequence of a decode-then-apply loop.
 *
 * <p>The decode function must be thread-safe and free of side effects (a {@link RecordDecoder} is):
 * it may run ahead of inputs whose own application fails. A decode that throws does not fail the
 * worker: the exception is kept as that input's result and rethrown by {@link Done#result} when the
 * caller reaches it, after every earlier input was applied (as a sequential loop would throw).
 *
 * <p>Used from one thread; {@link #begin} drops what an abandoned batch left and waits for the
 * worker, {@link #close} stops it.
 *
 * @param <I> an input (a Kafka record)
 * @param <O> its decoded form
 */
public final class DecodeAhead<I, O> implements AutoCloseable {
  private final int chunkSize;
  private final Function<I, O> decode;
  private final ExecutorService worker;
  private Object[] inputs;
  private int size;
  private InFlight inFlight;

  /** A decoded chunk: {@code size} inputs and their results, in input order. */
  public static final class Done {
    private final Object[] inputs;
    private final Object[] results;
    private final int size;

    private Done(Object[] inputs, Object[] results, int size) {
      this.inputs = inputs;
      this.results = results;
      this.size = size;
    }

    /** How many inputs the chunk holds. */
    public int size() {
      return size;
    }

    /** The {@code i}-th input, in the order it was {@link #add added}. */
    @SuppressWarnings("unchecked")
    public <I> I input(int i) {
      return (I) inputs[i];
    }

    /**
     * The {@code i}-th input's decoded form.
     *
     * @throws RuntimeException the exception its decoding threw (an {@link Error} as itself)
     */
    @SuppressWarnings("unchecked")
    public <O> O result(int i) {
      Object r = results[i];
      if (r instanceof Failed failed) {
        if (failed.thrown() instanceof RuntimeException e) {
          throw e;
        }
        throw (Error) failed.thrown();
      }
      return (O) r;
    }
  }

  /** A decode that threw, kept in place of its result. */
  private record Failed(Throwable thrown) {}

  private record InFlight(Object[] inputs, int size, Future<Object[]> results) {}

  /**
   * @param chunkSize inputs decoded together: large enough that handing a chunk over is cheap next
   *     to decoding it, small enough that the first chunk's wait is short
   * @param decode thread-safe, without side effects
   * @param threadName the worker thread's name
   */
  public DecodeAhead(int chunkSize, Function<I, O> decode, String threadName) {
    if (chunkSize < 1) {
      throw new IllegalArgumentException("chunk size must be positive, was " + chunkSize);
    }
    this.chunkSize = chunkSize;
    this.decode = Objects.requireNonNull(decode, "decode");
    this.worker =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    this.inputs = new Object[chunkSize];
  }

  /** Starts a batch: drops whatever an earlier, abandoned batch left, decoded or not. */
  public void begin() {
    awaitIdle();
    inputs = new Object[chunkSize];
    size = 0;
  }

  /**
   * Adds an input; returns the previous chunk once it is decoded, or null.
   *
   * @throws InterruptedIOException if interrupted while waiting for the worker
   */
  public Done add(I input) throws InterruptedIOException {
    inputs[size++] = input;
    return size == chunkSize ? submit() : null;
  }

  /**
   * Decodes everything added so far; returns the chunks not yet returned, in order. Afterwards
   * nothing is in flight.
   *
   * @throws InterruptedIOException if interrupted while waiting for the worker
   */
  public List<Done> drain() throws InterruptedIOException {
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
      done.add(new Done(last.inputs(), await(last.results()), last.size()));
    }
    return done;
  }

  private Done submit() throws InterruptedIOException {
    Object[] chunk = inputs;
    int n = size;
    inputs = new Object[chunkSize];
    size = 0;
    InFlight previous = inFlight;
    inFlight = new InFlight(chunk, n, worker.submit(() -> decodeAll(chunk, n)));
    return previous == null
        ? null
        : new Done(previous.inputs(), await(previous.results()), previous.size());
  }

  @SuppressWarnings("unchecked")
  private Object[] decodeAll(Object[] chunk, int n) {
    Object[] results = new Object[n];
    for (int i = 0; i < n; i++) {
      try {
        results[i] = decode.apply((I) chunk[i]);
      } catch (RuntimeException | Error e) {
        results[i] = new Failed(e);
      }
    }
    return results;
  }

  private static Object[] await(Future<Object[]> results) throws InterruptedIOException {
    try {
      return results.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while decoding");
    } catch (ExecutionException e) {
      // decodeAll keeps every failure as a result: only a bug gets here
      throw new IllegalStateException("decoding failed: " + e.getCause(), e.getCause());
    }
  }

  private void awaitIdle() {
    if (inFlight == null) {
      return;
    }
    try {
      inFlight.results().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException ignored) {
      // the abandoned batch's chunk: nothing of it is used
    }
    inFlight = null;
  }

  @Override
  public void close() {
    awaitIdle();
    worker.shutdownNow();
  }
}
