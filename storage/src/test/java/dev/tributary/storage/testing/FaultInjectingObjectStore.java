package dev.tributary.storage.testing;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Wraps any {@link ObjectStore} and makes chosen calls fail, for failure and crash tests.
 *
 * <p>Per {@link Operation}, faults are queued and each call of that operation takes the next one:
 *
 * <ul>
 *   <li>{@link #failNext}: the call throws an {@link IOException} WITHOUT doing anything;
 *   <li>{@link #succeedThenThrow}: the call DOES the operation and then throws an {@link
 *       IOException}: the "state unknown" case of a lost response.
 * </ul>
 *
 * Calls with no queued fault pass straight through. Every call is counted per operation, faulty or
 * not. For {@link Operation#CREATE}, the fault is taken when {@code create()} is called and fires
 * when that writer is closed: {@code failNext} aborts the underlying write (nothing is published),
 * {@code succeedThenThrow} publishes it. Injected exceptions' messages start with {@value
 * #MESSAGE_PREFIX}. Thread-safe.
 */
public final class FaultInjectingObjectStore implements ObjectStore {
  /** The start of every injected exception's message. */
  public static final String MESSAGE_PREFIX = "Injected fault: ";

  /** The operations faults can be injected into. */
  public enum Operation {
    /** {@code read}, {@code readRange} and {@code open}. */
    READ,
    /** {@code stat}. */
    STAT,
    /** {@code list}. */
    LIST,
    /** {@code put}. */
    PUT,
    /** {@code putIfAbsent}. */
    PUT_IF_ABSENT,
    /** {@code create}: the fault fires when the writer is closed. */
    CREATE,
    /** {@code delete}. */
    DELETE
  }

  private enum Fault {
    FAIL_BEFORE,
    FAIL_AFTER
  }

  private final ObjectStore delegate;
  private final Map<Operation, Deque<Fault>> faults = new EnumMap<>(Operation.class);
  private final Map<Operation, Integer> calls = new EnumMap<>(Operation.class);

  /** Wraps {@code delegate}, which this store closes when it is closed. */
  public FaultInjectingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
    for (Operation op : Operation.values()) {
      faults.put(op, new ArrayDeque<>());
      calls.put(op, 0);
    }
  }

  /** The wrapped store, for checking what really happened. */
  public ObjectStore delegate() {
    return delegate;
  }

  /** Makes the next {@code n} calls of {@code op} throw without doing anything. */
  public synchronized FaultInjectingObjectStore failNext(Operation op, int n) {
    enqueue(op, n, Fault.FAIL_BEFORE);
    return this;
  }

  /** Makes the next {@code n} calls of {@code op} do the operation and then throw. */
  public synchronized FaultInjectingObjectStore succeedThenThrow(Operation op, int n) {
    enqueue(op, n, Fault.FAIL_AFTER);
    return this;
  }

  /** Drops every queued fault; counters are kept. */
  public synchronized void clearFaults() {
    faults.values().forEach(Deque::clear);
  }

  /** How many faults are still queued for {@code op}. */
  public synchronized int pendingFaults(Operation op) {
    return faults.get(op).size();
  }

  /** How many times {@code op} was called, whether or not a fault was injected. */
  public synchronized int calls(Operation op) {
    return calls.get(op);
  }

  @Override
  public String location() {
    return delegate.location();
  }

  @Override
  public byte[] read(String key) throws IOException {
    return call(Operation.READ, key, () -> delegate.read(key));
  }

  @Override
  public byte[] readRange(String key, long offset, int length) throws IOException {
    return call(Operation.READ, key, () -> delegate.readRange(key, offset, length));
  }

  @Override
  public InputStream open(String key) throws IOException {
    Fault fault = take(Operation.READ);
    if (fault == Fault.FAIL_BEFORE) {
      throw injected(Operation.READ, key, fault);
    }
    InputStream in = delegate.open(key);
    if (fault == Fault.FAIL_AFTER) {
      in.close();
      throw injected(Operation.READ, key, fault);
    }
    return in;
  }

  @Override
  public Optional<ObjectInfo> stat(String key) throws IOException {
    return call(Operation.STAT, key, () -> delegate.stat(key));
  }

  @Override
  public List<ObjectInfo> sample(String prefix, int limit) throws IOException {
    return call(Operation.LIST, prefix + "*", () -> delegate.sample(prefix, limit));
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) throws IOException {
    return call(Operation.LIST, prefix + "*", () -> delegate.list(prefix, startAfter));
  }

  @Override
  public void put(String key, byte[] data) throws IOException {
    call(
        Operation.PUT,
        key,
        () -> {
          delegate.put(key, data);
          return null;
        });
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) throws IOException {
    return call(Operation.PUT_IF_ABSENT, key, () -> delegate.putIfAbsent(key, data));
  }

  @Override
  public ObjectWriter create(String key) throws IOException {
    Fault fault = take(Operation.CREATE);
    ObjectWriter writer = delegate.create(key);
    return fault == null ? writer : new FaultyWriter(writer, key, fault);
  }

  @Override
  public void delete(String key) throws IOException {
    call(
        Operation.DELETE,
        key,
        () -> {
          delegate.delete(key);
          return null;
        });
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }

  private void enqueue(Operation op, int n, Fault fault) {
    if (n < 0) {
      throw new IllegalArgumentException("fault count must not be negative, got " + n);
    }
    for (int i = 0; i < n; i++) {
      faults.get(op).addLast(fault);
    }
  }

  private synchronized Fault take(Operation op) {
    calls.merge(op, 1, Integer::sum);
    return faults.get(op).pollFirst();
  }

  private <T> T call(Operation op, String key, IoCall<T> action) throws IOException {
    Fault fault = take(op);
    if (fault == Fault.FAIL_BEFORE) {
      throw injected(op, key, fault);
    }
    T result = action.run();
    if (fault == Fault.FAIL_AFTER) {
      throw injected(op, key, fault);
    }
    return result;
  }

  private static IOException injected(Operation op, String key, Fault fault) {
    return new IOException(
        MESSAGE_PREFIX
            + op
            + " of '"
            + key
            + "' "
            + (fault == Fault.FAIL_BEFORE
                ? "failed before doing anything"
                : "was done, then failed (state unknown to the caller)"));
  }

  @FunctionalInterface
  private interface IoCall<T> {
    T run() throws IOException;
  }

  /** A writer whose close() fails, before or after publishing. */
  private static final class FaultyWriter extends ObjectWriter {
    private final ObjectWriter delegate;
    private final String key;
    private final Fault fault;
    private boolean closed;

    FaultyWriter(ObjectWriter delegate, String key, Fault fault) {
      this.delegate = delegate;
      this.key = key;
      this.fault = fault;
    }

    @Override
    public void write(int b) throws IOException {
      delegate.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      delegate.write(b, off, len);
    }

    @Override
    public long position() {
      return delegate.position();
    }

    @Override
    public void abort() throws IOException {
      closed = true;
      delegate.abort();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      if (fault == Fault.FAIL_BEFORE) {
        delegate.abort();
      } else {
        delegate.close();
      }
      throw injected(Operation.CREATE, key, fault);
    }
  }
}
