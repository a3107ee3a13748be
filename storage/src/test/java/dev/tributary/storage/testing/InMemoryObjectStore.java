package dev.tributary.storage.testing;

import dev.tributary.storage.ObjectInfo;
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

/** A thread-safe object store in memory, for unit tests. Keys sort as Strings (ASCII keys only). */
public final class InMemoryObjectStore implements ObjectStore {
  private record Entry(byte[] data, Instant modified) {}

  private final ConcurrentNavigableMap<String, Entry> objects = new ConcurrentSkipListMap<>();
  private final Clock clock;

  public InMemoryObjectStore() {
    this(Clock.systemUTC());
  }

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
    Entry e = objects.get(key);
    return e == null ? Optional.empty() : Optional.of(info(key, e));
  }

  @Override
  public List<ObjectInfo> list(String prefix, String startAfter) {
    List<ObjectInfo> out = new ArrayList<>();
    for (Map.Entry<String, Entry> e : objects.tailMap(prefix, true).entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (startAfter == null || e.getKey().compareTo(startAfter) > 0) {
        out.add(info(e.getKey(), e.getValue()));
      }
    }
    return out;
  }

  @Override
  public void put(String key, byte[] data) {
    objects.put(key, new Entry(data.clone(), clock.instant()));
  }

  @Override
  public boolean putIfAbsent(String key, byte[] data) {
    return objects.putIfAbsent(key, new Entry(data.clone(), clock.instant())) == null;
  }

  @Override
  public ObjectWriter create(String key) {
    return new ObjectWriter() {
      private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
      private boolean done;

      @Override
      public void write(int b) {
        buffer.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
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
    };
  }

  @Override
  public void delete(String key) {
    objects.remove(key);
  }

  @Override
  public void close() {}

  private Entry entry(String key) throws ObjectNotFoundException {
    Entry e = objects.get(key);
    if (e == null) {
      throw new ObjectNotFoundException(location(), key);
    }
    return e;
  }

  private static ObjectInfo info(String key, Entry e) {
    return new ObjectInfo(key, e.data.length, e.modified);
  }
}
