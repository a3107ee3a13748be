package dev.tributary.storage.testing;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectWriter;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link ObjectStore} must have. An implementation's test extends this class
 * and returns a fresh, empty store from {@link #newStore()}; every test gets its own store, which
 * is closed afterwards.
 */
public abstract class ObjectStoreContractTest {
  /** The store under test, fresh and empty for each test. */
  protected ObjectStore store;

  /** Returns a new, empty store. Called once before each test. */
  protected abstract ObjectStore newStore() throws Exception;

  /**
   * The size of the object written by the streaming-write test: 20 MiB by default, more than the
   * default S3 part size (8 MiB), so that multipart uploads are exercised.
   */
  protected int largeObjectSize() {
    return 20 * 1024 * 1024;
  }

  /**
   * Whether listings never show anything of a write in progress. True for every real backend; a
   * test server that lists its own temporary files during a PUT overrides this with false, and the
   * concurrent test then checks reads only.
   */
  protected boolean listingHidesWritesInProgress() {
    return true;
  }

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStore() throws Exception {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void readingAMissingKeyThrowsNotFoundNamingKeyAndLocation() {
    for (ThrowingRead read :
        List.<ThrowingRead>of(
            () -> store.read("missing/key.json"),
            () -> store.readRange("missing/key.json", 0, 10),
            () -> store.open("missing/key.json").close())) {
      assertThatThrownBy(read::run)
          .isInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("missing/key.json")
          .hasMessageContaining(store.location())
          .satisfies(
              e -> assertThat(((ObjectNotFoundException) e).key()).isEqualTo("missing/key.json"));
    }
  }

  @Test
  void statTellsSizeOfPresentKeysAndNothingForMissingOnes() throws IOException {
    store.put("dir/a.bin", bytes(1234, 1));
    store.put("dir/empty", new byte[0]);

    assertThat(store.stat("dir/a.bin"))
        .get()
        .satisfies(info -> assertThat(info.key()).isEqualTo("dir/a.bin"))
        .satisfies(info -> assertThat(info.size()).isEqualTo(1234));
    assertThat(store.stat("dir/empty")).get().extracting(ObjectInfo::size).isEqualTo(0L);
    assertThat(store.stat("dir/missing")).isEmpty();
    assertThat(store.stat("dir")).as("a 'directory' is not an object").isEmpty();
  }

  @Test
  void putThenReadReturnsTheSameBytes() throws IOException {
    byte[] data = bytes(10_000, 2);
    store.put("a/b/c.bin", data);
    store.put("empty.bin", new byte[0]);

    assertThat(store.read("a/b/c.bin")).isEqualTo(data);
    assertThat(store.read("empty.bin")).isEmpty();
    try (InputStream in = store.open("a/b/c.bin")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @Test
  void readRangeReturnsTheRangeAndStopsAtTheEnd() throws IOException {
    store.put("r.txt", "0123456789".getBytes(UTF_8));

    assertThat(new String(store.readRange("r.txt", 2, 3), UTF_8)).isEqualTo("234");
    assertThat(new String(store.readRange("r.txt", 0, 10), UTF_8)).isEqualTo("0123456789");
    assertThat(new String(store.readRange("r.txt", 7, 100), UTF_8)).isEqualTo("789");
    assertThat(store.readRange("r.txt", 10, 5)).isEmpty();
    assertThat(store.readRange("r.txt", 50, 5)).isEmpty();
    assertThat(store.readRange("r.txt", 3, 0)).isEmpty();
  }

  @Test
  void readRangeRejectsNegativeArguments() throws IOException {
    store.put("r.txt", "0123456789".getBytes(UTF_8));

    assertThatThrownBy(() -> store.readRange("r.txt", -1, 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("r.txt")
        .hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> store.readRange("r.txt", 0, -3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
  }

  @Test
  void listIsRecursiveSortedAndUsesAPlainStringPrefix() throws IOException {
    // No key is also the "directory" of another (a and a/b): local file systems cannot hold both.
    for (String key : List.of("b", "a/2", "a/1", "a/10", "ab", "a-x", "a/3/deep/x", "c/d/e")) {
      store.put(key, key.getBytes(UTF_8));
    }

    assertThat(keys(store.list("")))
        .containsExactly("a-x", "a/1", "a/10", "a/2", "a/3/deep/x", "ab", "b", "c/d/e");
    assertThat(keys(store.list("a")))
        .containsExactly("a-x", "a/1", "a/10", "a/2", "a/3/deep/x", "ab");
    assertThat(keys(store.list("a/"))).containsExactly("a/1", "a/10", "a/2", "a/3/deep/x");
    assertThat(keys(store.list("a/1"))).containsExactly("a/1", "a/10");
    assertThat(keys(store.list("a/3/d"))).containsExactly("a/3/deep/x");
    assertThat(keys(store.list("c/"))).containsExactly("c/d/e");
    assertThat(store.list("zz")).isEmpty();
    assertThat(store.list("c/d/e/f")).isEmpty();
    assertThat(store.list("b").get(0).size()).isEqualTo(1);
  }

  @Test
  void listStartAfterReturnsOnlyStrictlyGreaterKeys() throws IOException {
    for (int i = 0; i < 12; i++) {
      store.put(String.format("log/%020d.json", i), new byte[] {(byte) i});
    }
    store.put("log/_last_checkpoint", new byte[1]);

    assertThat(keys(store.list("log/", String.format("log/%020d.json", 9))))
        .containsExactly(
            String.format("log/%020d.json", 10),
            String.format("log/%020d.json", 11),
            "log/_last_checkpoint");
    assertThat(keys(store.list("log/", "log/00000000000000000009.zzz")))
        .as("startAfter need not be an existing key")
        .first()
        .isEqualTo(String.format("log/%020d.json", 10));
    assertThat(store.list("log/", "a")).hasSize(13);
    assertThat(store.list("log/", "zzz")).isEmpty();
    assertThat(store.list("log/", null)).hasSize(13);
  }

  @Test
  void listStartAfterWorksAcrossNestedKeys() throws IOException {
    for (String key : List.of("p/a/1", "p/a/2", "p/b/1", "p/c", "q")) {
      store.put(key, new byte[1]);
    }

    assertThat(keys(store.list("p/", "p/a/1"))).containsExactly("p/a/2", "p/b/1", "p/c");
    assertThat(keys(store.list("p/", "p/a"))).containsExactly("p/a/1", "p/a/2", "p/b/1", "p/c");
    assertThat(keys(store.list("p/", "p/a/"))).containsExactly("p/a/1", "p/a/2", "p/b/1", "p/c");
    assertThat(keys(store.list("p/", "p/b"))).containsExactly("p/b/1", "p/c");
    assertThat(keys(store.list("", "p/b/1"))).containsExactly("p/c", "q");
    assertThat(keys(store.list("p/a", "p/a/1"))).containsExactly("p/a/2");
  }

  @Test
  void sampleReturnsAtMostTheLimitAndIsEmptyOnlyWhenThePrefixIs() throws IOException {
    for (String key : List.of("t/a/1", "t/a/2", "t/b/1", "t/c", "u")) {
      store.put(key, new byte[1]);
    }

    List<String> two = keys(store.sample("t/", 2));
    assertThat(two).hasSize(2).isSorted().isSubsetOf("t/a/1", "t/a/2", "t/b/1", "t/c");
    assertThat(keys(store.sample("t/", 10))).containsExactly("t/a/1", "t/a/2", "t/b/1", "t/c");
    assertThat(keys(store.sample("t/b", 10))).containsExactly("t/b/1");
    assertThat(keys(store.sample("", 10))).containsExactly("t/a/1", "t/a/2", "t/b/1", "t/c", "u");
    assertThat(store.sample("v/", 3)).isEmpty();
    assertThat(store.sample("t/a/1/x", 3)).isEmpty();
    assertThatThrownBy(() -> store.sample("t/", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A listing limit must be at least 1, was 0");
  }

  @Test
  void putReplacesAnExistingObject() throws IOException {
    store.put("k", "old".getBytes(UTF_8));
    store.put("k", "new and longer".getBytes(UTF_8));

    assertThat(new String(store.read("k"), UTF_8)).isEqualTo("new and longer");
    assertThat(store.list("")).hasSize(1);
  }

  @Test
  void putIfAbsentCreatesOnceAndNeverOverwrites() throws IOException {
    assertThat(store.putIfAbsent("log/0.json", "first".getBytes(UTF_8))).isTrue();
    assertThat(store.putIfAbsent("log/0.json", "second".getBytes(UTF_8))).isFalse();

    assertThat(new String(store.read("log/0.json"), UTF_8)).isEqualTo("first");
    assertThat(keys(store.list(""))).containsExactly("log/0.json");
  }

  @Test
  void exactlyOneOfManyConcurrentPutIfAbsentWins() throws Exception {
    int threads = 16;
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        byte[] payload = ("writer-" + i + "-" + "x".repeat(i * 100)).getBytes(UTF_8);
        results.add(
            pool.submit(
                () -> {
                  start.await(30, TimeUnit.SECONDS);
                  return store.putIfAbsent("race/00000000000000000001.json", payload);
                }));
      }
      List<Integer> winners = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        if (results.get(i).get(60, TimeUnit.SECONDS)) {
          winners.add(i);
        }
      }

      assertThat(winners).hasSize(1);
      int winner = winners.get(0);
      assertThat(new String(store.read("race/00000000000000000001.json"), UTF_8))
          .isEqualTo("writer-" + winner + "-" + "x".repeat(winner * 100));
      assertThat(keys(store.list(""))).containsExactly("race/00000000000000000001.json");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentReadersSeeOnlyWholeObjectsWhileWritersReplaceThem() throws Exception {
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      payloads.add(bytes(32 * 1024 + i, 100 + i));
    }
    store.put("hot/object", payloads.get(0));
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        byte[] payload = payloads.get(w);
        boolean streaming = w % 2 == 0;
        tasks.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 10; i++) {
                    if (streaming) {
                      try (ObjectWriter writer = store.create("hot/object")) {
                        writer.write(payload);
                      }
                    } else {
                      store.put("hot/object", payload);
                    }
                  }
                  return null;
                }));
      }
      for (int r = 0; r < 2; r++) {
        tasks.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 25; i++) {
                    byte[] seen = store.read("hot/object");
                    assertThat(payloads.stream().anyMatch(p -> Arrays.equals(p, seen)))
                        .as("read %d saw a partial or mixed object of %d bytes", i, seen.length)
                        .isTrue();
                    if (listingHidesWritesInProgress()) {
                      assertThat(keys(store.list("hot/"))).containsExactly("hot/object");
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> task : tasks) {
        task.get(120, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void streamingCreateWritesALargeObject() throws IOException {
    int size = largeObjectSize();
    byte[] data = bytes(size, 3);
    try (ObjectWriter writer = store.create("big/object.bin")) {
      int offset = 0;
      int chunk = 1;
      while (offset < size) {
        int n = Math.min(chunk, size - offset);
        if (n == 1) {
          writer.write(data[offset]);
        } else {
          writer.write(data, offset, n);
        }
        offset += n;
        chunk = chunk * 7 + 3 > 3_000_000 ? 1 : chunk * 7 + 3; // odd sizes, across part bounds
        assertThat(writer.position()).isEqualTo(offset);
      }
    }

    assertThat(store.stat("big/object.bin"))
        .get()
        .extracting(ObjectInfo::size)
        .isEqualTo((long) size);
    assertThat(store.read("big/object.bin")).isEqualTo(data);
    int middle = size / 2;
    assertThat(store.readRange("big/object.bin", middle - 1000, 2000))
        .isEqualTo(Arrays.copyOfRange(data, middle - 1000, middle + 1000));
  }

  @Test
  void streamingCreateOfSmallAndEmptyObjects() throws IOException {
    try (ObjectWriter writer = store.create("small")) {
      writer.write("hello".getBytes(UTF_8));
    }
    try (ObjectWriter writer = store.create("empty")) {
      assertThat(writer.position()).isZero();
    }

    assertThat(new String(store.read("small"), UTF_8)).isEqualTo("hello");
    assertThat(store.read("empty")).isEmpty();
  }

  @Test
  void abortLeavesNothingAndKeepsAnExistingObject() throws IOException {
    store.put("kept", "old".getBytes(UTF_8));

    ObjectWriter fresh = store.create("never");
    fresh.write(bytes(1000, 4));
    fresh.abort();
    fresh.close(); // a no-op after abort
    ObjectWriter replacing = store.create("kept");
    replacing.write("new".getBytes(UTF_8));
    replacing.abort();

    assertThat(store.stat("never")).isEmpty();
    assertThat(new String(store.read("kept"), UTF_8)).isEqualTo("old");
    assertThat(keys(store.list(""))).containsExactly("kept");
  }

  @Test
  void aReaderNeverSeesAnObjectWhileItIsBeingWritten() throws IOException {
    store.put("replaced", "old".getBytes(UTF_8));
    byte[] data = bytes(64 * 1024 + 17, 5);

    try (ObjectWriter created = store.create("created");
        ObjectWriter replaced = store.create("replaced")) {
      created.write(data, 0, data.length / 2);
      replaced.write(data, 0, data.length / 2);
      created.flush();

      assertThat(store.stat("created")).isEmpty();
      assertThatThrownBy(() -> store.read("created"))
          .isInstanceOf(ObjectNotFoundException.class)
          .hasMessageContaining("created");
      assertThat(keys(store.list(""))).containsExactly("replaced");
      assertThat(new String(store.read("replaced"), UTF_8)).isEqualTo("old");

      created.write(data, data.length / 2, data.length - data.length / 2);
      replaced.write(data, data.length / 2, data.length - data.length / 2);
    }

    assertThat(store.read("created")).isEqualTo(data);
    assertThat(store.read("replaced")).isEqualTo(data);
  }

  @Test
  void writingAfterCloseFails() throws IOException {
    ObjectWriter writer = store.create("closed");
    writer.write(1);
    writer.close();
    writer.close(); // idempotent

    assertThatThrownBy(() -> writer.write(2))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("after close() or abort()");
    assertThat(store.read("closed")).containsExactly(1);
  }

  @Test
  void deleteRemovesAnObjectAndIgnoresMissingKeys() throws IOException {
    store.put("d/x", new byte[] {1});
    store.put("d/y", new byte[] {2});

    store.delete("d/x");
    store.delete("d/x");
    store.delete("never/existed");

    assertThat(store.stat("d/x")).isEmpty();
    assertThat(keys(store.list(""))).containsExactly("d/y");
    assertThat(store.putIfAbsent("d/x", new byte[] {3}))
        .as("a deleted key can be created again")
        .isTrue();
  }

  @Test
  void keysWithSpacesUnicodeAndEqualsSignsWork() throws IOException {
    List<String> keys =
        List.of(
            "table/date=2024-01-01/part 0001.parquet",
            "table/région=Île-de-France/日本語.json",
            "table/k/\uFFFD",
            "table/k/\uD83D\uDE00 emoji",
            "table/k/a+b&c@d,e;f");
    for (String key : keys) {
      store.put(key, key.getBytes(UTF_8));
    }

    for (String key : keys) {
      assertThat(new String(store.read(key), UTF_8)).isEqualTo(key);
      assertThat(store.stat(key)).isPresent();
    }
    assertThat(keys(store.list("table/k/")))
        .as("code point (UTF-8 byte) order")
        .containsExactly("table/k/a+b&c@d,e;f", "table/k/\uFFFD", "table/k/\uD83D\uDE00 emoji");
    assertThat(keys(store.list("table/date=2024-01-01/")))
        .containsExactly("table/date=2024-01-01/part 0001.parquet");
  }

  @Test
  void invalidKeysAreRejectedWithTheKeyInTheMessage() {
    for (String key : List.of("", "/absolute", "a/../../etc/passwd", "a//b", "dir/", "./x")) {
      assertThatThrownBy(() -> store.put(key, new byte[1]))
          .as("key '%s'", key)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid object key '" + key + "'");
      assertThatThrownBy(() -> store.read(key))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("Invalid object key '" + key + "'");
    }
  }

  /** Deterministic pseudo-random bytes. */
  protected static byte[] bytes(int size, long seed) {
    byte[] data = new byte[size];
    new Random(seed).nextBytes(data);
    return data;
  }

  /** The keys of a listing, in order. */
  protected static List<String> keys(List<ObjectInfo> infos) {
    return infos.stream().map(ObjectInfo::key).toList();
  }

  @FunctionalInterface
  private interface ThrowingRead {
    void run() throws Exception;
  }
}
