package dev.tributary.storage.testing;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectKeys;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A thread-safe {@link ObjectStore} in memory, for unit tests. It follows the whole contract (key
 * rules, listing order, atomic put-if-absent, invisible streaming writes) and passes the shared
 * contract test, so tests of the layers above may use it in place of a real store.
 */
public final class InMemoryObjectStore implements ObjectStore {
  private record Entry(byte[] data, Instant modified) {}

  private final ConcurrentNavigableMap<String, Entry> objects =
      new ConcurrentSkipListMap<>(ObjectKeys.ORDER);
  private final Clock clock;

  /** An empty store whose modification times come from the system clock. */
  public InMemoryObjectStore() {
    this(Clock.systemUTC());
  }

  /** An empty store whose modification times come from {@code clock}. */
  public InMemoryObjectStore(Clock clock) {
    this.clock = clock;
  }

  @Override
  public String location() {
    return "memory://" + Integer.toHexString(System.identityHashCode(this));
  }

  @Override
  public byte[] read(String key) throws IOException {
    return entry(key).data.clone();
  }

  @Override
  public byte[] readRange(String key, long offset, int length) throws IOException {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException(
          "Invalid range of '"
              + key
              + "': offset "
              + offset
              + " and length "
              + length
              + " must not be negative");
    }
    byte[] data = entry(key).data;
    int from = (int) Math.min(offset, data.length);
    int to = (int) Math.min((long) from + length, data.length);
    return Arrays.copyOfRange(data, from, to);
  }

  @Override
  public InputStream open(String key) throws IOException {
    return new ByteArrayInputStream(entry(key).data);
  }

  @Override
  public Optional<ObjectInfo> stat(String key) {
    Entry e = objects.get(ObjectKeys.check(key));
    return e == null ? Optional.empty() : Optional.of(info(key, e));
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) {
    List<ObjectInfo> out = new ArrayList<>();
    for (Map.Entry<String, Entry> e : objects.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (startAfter == null || ObjectKeys.ORDER.compare(e.getKey(), startAfter) > 0) {
        out.add(info(e.getKey(), e.getValue()));
      }
    }
    return out;
  }

  @Override
  public void put(String key, byte[] data) {
    objects.put(ObjectKeys.check(key), new Entry(data.clone(), clock.instant()));
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) {
    return objects.putIfAbsent(ObjectKeys.check(key), new Entry(data.clone(), clock.instant()))
        == null;
  }

  @Override
  public ObjectWriter create(String key) {
    ObjectKeys.check(key);
    return new ObjectWriter() {
      private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      private boolean done;

      @Override
      public void write(int b) throws IOException {
        ensureOpen();
        buffer.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        ensureOpen();
        buffer.write(b, off, len);
      }

      @Override
      public long position() {
        return buffer.size();
      }

      @Override
      public void abort() {
        done = true;
      }

      @Override
      public void close() {
        if (!done) {
          done = true;
          put(key, buffer.toByteArray());
        }
      }

      private void ensureOpen() throws IOException {
        if (done) {
          throw new IOException("Write after close() or abort() of the object writer for " + key);
        }
      }
    };
  }

  @Override
  public void delete(String key) {
    objects.remove(ObjectKeys.check(key));
  }

  @Override
  public void close() {}

  private Entry entry(String key) throws ObjectNotFoundException {
    Entry e = objects.get(ObjectKeys.check(key));
    if (e == null) {
      throw new ObjectNotFoundException(location(), key);
    }
    return e;
  }

  private static ObjectInfo info(String key, Entry e) {
    return new ObjectInfo(key, e.data.length, e.modified);
  }
}
