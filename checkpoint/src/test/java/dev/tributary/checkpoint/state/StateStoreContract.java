package dev.tributary.checkpoint.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.checkpoint.CorruptCheckpointException;
import dev.tributary.storage.ObjectInfo;
import dev.tributary.storage.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state store's behaviour, run against every kind of {@link ObjectStore} by subclasses. */
abstract class StateStoreContract {
  private static final String OP = "dedup-1";

  protected ObjectStore store;
  @TempDir Path dir;

  /** A new, empty checkpoint store for one test. */
  protected abstract ObjectStore newStore() throws Exception;

  @BeforeEach
  void setUp() throws Exception {
    store = newStore();
  }

  @AfterEach
  void tearDown() throws Exception {
    store.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private StateStore open(long version) throws Exception {
    return StateStore.open(store, OP, version, dir.resolve("work"), 4);
  }

  private static TreeMap<byte[], byte[]> newModel() {
    return new TreeMap<>(Arrays::compareUnsigned);
  }

  private static List<String> contents(StateStore state, byte[] prefix) {
    List<String> out = new ArrayList<>();
    try (StateIterator it = state.scan(prefix)) {
      it.forEachRemaining(e -> out.add(s(e.key()) + "=" + s(e.value())));
    }
    return out;
  }

  private static List<String> contents(Map<byte[], byte[]> model, String prefix) {
    List<String> out = new ArrayList<>();
    model.forEach(
        (k, v) -> {
          if (s(k).startsWith(prefix)) {
            out.add(s(k) + "=" + s(v));
          }
        });
    return out;
  }

  @Test
  void everyVersionReloadsExactlyTheStateAfterThatBatch() throws Exception {
    Random random = new Random(42);
    List<TreeMap<byte[], byte[]>> models = new ArrayList<>();
    TreeMap<byte[], byte[]> model = newModel();
    int versions = 14;
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      for (int v = 0; v < versions; v++) {
        for (int op = 0; op < 40; op++) {
          byte[] key = b((random.nextBoolean() ? "a/" : "b/") + random.nextInt(60));
          int kind = random.nextInt(12);
          if (kind < 3) {
            state.delete(key);
            model.remove(key);
          } else if (kind < 5) {
            byte[] value = b("first-" + v + "-" + op);
            assertThat(state.putIfAbsent(key, value)).isEqualTo(!model.containsKey(key));
            model.putIfAbsent(key, value);
          } else if (kind == 5 && op % 3 == 0) {
            int n = random.nextInt(6);
            byte[][] keys = new byte[n][];
            byte[][] values = new byte[n][];
            for (int i = 0; i < n; i++) {
              keys[i] = b((random.nextBoolean() ? "a/" : "b/") + random.nextInt(60));
              values[i] = b("many-" + v + "-" + op + "-" + i);
            }
            boolean[] set = state.putAllIfAbsent(keys, values);
            for (int i = 0; i < n; i++) {
              assertThat(set[i]).isEqualTo(!model.containsKey(keys[i]));
              model.putIfAbsent(keys[i], values[i]);
            }
          } else if (kind == 5 && op % 3 == 1) {
            byte[] key2 = b("c/" + v + "-" + op); // never set before: insertAll needs no lookup
            state.insertAll(new byte[][] {key2}, new byte[][] {b("inserted")});
            model.put(key2, b("inserted"));
          } else if (kind == 5) {
            byte[] from = b((random.nextBoolean() ? "a/" : "b/") + random.nextInt(60));
            byte[] to = b(s(from) + random.nextInt(10));
            if (random.nextBoolean()) {
              byte[] swap = from;
              from = to;
              to = swap; // an empty range
            }
            var removed =
                Arrays.compareUnsigned(from, to) < 0
                    ? model.subMap(from, true, to, false)
                    : newModel();
            int expectedRemoved = removed.size();
            assertThat(state.deleteRange(from, to)).isEqualTo(expectedRemoved);
            removed.clear();
          } else {
            byte[] value = b("v" + v + "-" + op + "-" + "x".repeat(random.nextInt(20)));
            state.put(key, value);
            model.put(key, value);
          }
          if (random.nextInt(10) == 0) {
            byte[] probe = b("a/" + random.nextInt(60));
            assertThat(s(state.get(probe))).isEqualTo(s(model.get(probe)));
          }
        }
        assertThat(contents(state, new byte[0])).isEqualTo(contents(model, ""));
        assertThat(state.metrics().keys()).isEqualTo(model.size());
        assertThat(state.metrics().bytes())
            .isEqualTo(
                model.entrySet().stream()
                    .mapToLong(e -> e.getKey().length + e.getValue().length)
                    .sum());
        state.commit(v);
        TreeMap<byte[], byte[]> copy = newModel();
        copy.putAll(model);
        models.add(copy);
      }
    }
    assertThat(store.list("state/" + OP + "/"))
        .extracting(ObjectInfo::key)
        .filteredOn(k -> k.endsWith(".snapshot"))
        .containsExactly(
            "state/dedup-1/00000000000000000003.snapshot",
            "state/dedup-1/00000000000000000007.snapshot",
            "state/dedup-1/00000000000000000011.snapshot");

    for (int v = -1; v < versions; v++) {
      TreeMap<byte[], byte[]> expected = v < 0 ? newModel() : models.get(v);
      try (StateStore state = open(v)) {
        assertThat(state.version()).isEqualTo(v);
        assertThat(contents(state, new byte[0]))
            .as("version %d", v)
            .isEqualTo(contents(expected, ""));
        assertThat(contents(state, b("b/"))).isEqualTo(contents(expected, "b/"));
        StateMetrics m = state.metrics();
        assertThat(m.keys()).isEqualTo(expected.size());
        assertThat(m.bytes())
            .isEqualTo(
                expected.entrySet().stream()
                    .mapToLong(e -> e.getKey().length + e.getValue().length)
                    .sum());
        assertThat(m.keysWritten()).isZero();
      }
    }
  }

  @Test
  void reopeningTheLatestVersionRestoresTheStateAndContinues() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      state.put(b("k1"), b("one"));
      state.commit(0);
      state.put(b("k2"), b("two"));
      state.commit(1);
    }
    try (StateStore state = open(1)) {
      assertThat(contents(state, new byte[0])).containsExactly("k1=one", "k2=two");
      state.delete(b("k1"));
      state.commit(2);
    }
    try (StateStore state = open(2)) {
      assertThat(contents(state, new byte[0])).containsExactly("k2=two");
      assertThat(state.get(b("k1"))).isNull();
    }
  }

  @Test
  void uncommittedChangesAreDiscardedOnReloadAndAbort() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      state.put(b("kept"), b("1"));
      state.commit(0);
      state.put(b("lost"), b("2"));
      state.delete(b("kept"));
      assertThat(state.metrics()).isEqualTo(new StateMetrics(0, 1, 5, 1, 1));

      state.abort();

      assertThat(state.metrics()).isEqualTo(new StateMetrics(0, 1, 5, 0, 0));
      assertThat(contents(state, new byte[0])).containsExactly("kept=1");
      state.put(b("lost"), b("2"));
    }
    try (StateStore state = open(0)) {
      assertThat(contents(state, new byte[0])).containsExactly("kept=1");
    }
    assertThat(store.list("state/")).hasSize(1);
  }

  @Test
  void abortAfterChangesRebuildsTheCommittedVersionAndTheBatchCanBeRedone() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      for (int i = 0; i < 10; i++) {
        state.put(b("t/" + i), b("v" + i));
      }
      state.commit(0);
      state.deleteRange(b("t/"), b("t/5"));
      state.put(b("t/7"), b("changed"));
      assertThat(state.putIfAbsent(b("u"), b("new"))).isTrue();

      state.abort();

      assertThat(state.version()).isZero();
      assertThat(state.metrics()).isEqualTo(new StateMetrics(0, 10, 50, 0, 0));
      assertThat(s(state.get(b("t/7")))).isEqualTo("v7");
      assertThat(state.get(b("u"))).isNull();
      // the retried batch makes different changes; its changelog is the one that counts
      assertThat(state.deleteRange(b("t/8"), b("t/9~"))).isEqualTo(2);
      state.commit(1);
    }
    try (StateStore state = open(1)) {
      assertThat(contents(state, new byte[0]))
          .containsExactly(
              "t/0=v0", "t/1=v1", "t/2=v2", "t/3=v3", "t/4=v4", "t/5=v5", "t/6=v6", "t/7=v7");
      assertThat(state.metrics().keys()).isEqualTo(8);
    }
  }

  @Test
  void scansMergeUncommittedChangesAndIgnoreChangesMadeWhileOpen() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      for (String k : List.of("w/1", "w/2", "w/3", "x/1")) {
        state.put(b(k), b("old"));
      }
      state.commit(0);
      state.put(b("w/2"), b("new"));
      state.delete(b("w/3"));
      state.put(b("w/0"), b("added"));

      try (StateIterator it = state.scan(b("w/"))) {
        List<String> seen = new ArrayList<>();
        while (it.hasNext()) {
          StateEntry e = it.next();
          seen.add(s(e.key()) + "=" + s(e.value()));
          state.delete(e.key()); // evicting while scanning is allowed
        }
        assertThat(seen).containsExactly("w/0=added", "w/1=old", "w/2=new");
      }
      assertThat(contents(state, new byte[0])).containsExactly("x/1=old");
      state.commit(1);
    }
    try (StateStore state = open(1)) {
      assertThat(contents(state, new byte[0])).containsExactly("x/1=old");
    }
  }

  @Test
  void valuesAreCopiedInAndOut() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      byte[] key = b("k");
      byte[] value = b("v");
      state.put(key, value);
      key[0] = 'x';
      value[0] = 'x';
      state.get(b("k"))[0] = 'y';

      assertThat(s(state.get(b("k")))).isEqualTo("v");
    }
  }

  @Test
  void replayingACommittedVersionWithTheSameChangesSucceeds() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      state.put(b("k"), b("v"));
      state.commit(0);
    }
    try (StateStore replay = StateStore.open(store, OP, -1, dir.resolve("replay"), 4)) {
      replay.put(b("k"), b("v"));
      replay.commit(0);
      assertThat(replay.version()).isZero();
    }
  }

  @Test
  void aReplayWithOtherChangesAdoptsTheVersionAnEarlierAttemptCommitted() throws Exception {
    // The first attempt committed version 0 and crashed before its batch was marked done; the
    // replay read its input in another order and produced other changes. The committed version is
    // what the tables were written with, so the replay takes it instead of failing.
    try (StateStore first = open(StateStore.INITIAL_VERSION)) {
      first.put(b("k"), b("from-first"));
      first.put(b("gone"), b("x"));
      first.commit(0);
    }
    try (StateStore replay = StateStore.open(store, OP, -1, dir.resolve("replay"), 4)) {
      replay.put(b("k"), b("from-replay"));
      replay.put(b("extra"), b("y"));

      replay.commit(0);

      assertThat(replay.version()).isZero();
      assertThat(s(replay.get(b("k")))).isEqualTo("from-first");
      assertThat(replay.get(b("extra"))).isNull();
      assertThat(replay.metrics().keys()).isEqualTo(2);
      replay.delete(b("gone"));
      replay.commit(1);
    }
    try (StateStore reopened = open(1)) {
      assertThat(s(reopened.get(b("k")))).isEqualTo("from-first");
      assertThat(reopened.get(b("gone"))).isNull();
      assertThat(reopened.metrics().keys()).isEqualTo(1);
    }
  }

  @Test
  void commitsMustFollowTheCurrentVersion() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      assertThatThrownBy(() -> state.commit(1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "State of operator dedup-1 is at version -1: the next commit must be"
                  + " version 0, not 1");
    }
  }

  private void writeVersions(int count) throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      for (int v = 0; v < count; v++) {
        state.put(b("k" + v), b("v" + v));
        state.commit(v);
      }
    }
  }

  private static String key(long version, String kind) {
    return String.format("state/dedup-1/%020d.%s", version, kind);
  }

  @Test
  void corruptChangelogIsDetected() throws Exception {
    writeVersions(2);
    byte[] good = store.read(key(1, "delta"));

    byte[] flipped = good.clone();
    flipped[good.length - 14] ^= 1; // a byte of the value, before end marker, count, checksum
    store.put(key(1, "delta"), flipped);
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessage(
            "Cannot read checkpoint file '"
                + key(1, "delta")
                + "' in "
                + store.location()
                + ": its CRC-32C checksum does not match its content.");

    store.put(key(1, "delta"), Arrays.copyOf(good, good.length - 3));
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageEndingWith("it ends before its end marker and checksum (truncated).");

    store.put(key(1, "delta"), new byte[0]);
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageEndingWith("(truncated).");

    store.put(key(1, "delta"), store.read(key(0, "delta")));
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageEndingWith(
            ": it holds a changelog of version 0 but its name says a changelog" + " of version 1.");

    byte[] newer = good.clone();
    newer[11] = 3;
    store.put(key(1, "delta"), newer);
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(
            "state file format 3 is unknown (this release reads format 2):"
                + " written by a newer Tributary? Upgrade Tributary");

    store.put(key(1, "delta"), b("v1\n{\"batchId\":1}\n"));
    assertThatThrownBy(() -> open(1))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("it does not start with the state file magic 'TRBSTATE'");
  }

  @Test
  void missingVersionsAndChangelogsAreReported() throws Exception {
    writeVersions(3);

    assertThatThrownBy(() -> open(5))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageStartingWith(
            "Inconsistent checkpoint in "
                + store.location()
                + ": state version 5 of operator dedup-1 does not exist (the latest is 2 under"
                + " state/dedup-1/)");

    store.delete(key(1, "delta"));
    assertThatThrownBy(() -> open(2))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining(
            "state version 2 of operator dedup-1 needs changelog '"
                + key(1, "delta")
                + "', which is missing (there is no snapshot before it)");
  }

  @Test
  void purgeKeepsWhatLaterVersionsNeed() throws Exception {
    writeVersions(10); // snapshots at 3 and 7 (interval 4)

    assertThat(StateStore.purge(store, OP, 8)).isEqualTo(8); // deltas 0-6, snapshot 3

    assertThat(store.list("state/"))
        .extracting(ObjectInfo::key)
        .containsExactly(key(7, "delta"), key(7, "snapshot"), key(8, "delta"), key(9, "delta"));
    try (StateStore state = open(8)) {
      assertThat(state.metrics().keys()).isEqualTo(9);
    }
    try (StateStore state = open(7)) {
      assertThat(contents(state, b("k9"))).isEmpty();
      assertThat(state.metrics().keys()).isEqualTo(8);
    }
    assertThatThrownBy(() -> open(6))
        .isInstanceOf(CorruptCheckpointException.class)
        .hasMessageContaining("state version 6 of operator dedup-1 does not exist");
    assertThat(StateStore.purge(store, OP, 2)).isZero();
  }

  @Test
  void aForeignLocalDirectoryIsNotWiped() throws Exception {
    Path foreign = Files.createDirectories(dir.resolve("precious"));
    Files.writeString(foreign.resolve("notes.txt"), "keep me");

    assertThatThrownBy(() -> StateStore.open(store, OP, -1, foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "State store local directory "
                + foreign
                + " is not empty and was not"
                + " created by a state store (no .tributary-state-store file in it); give an empty or"
                + " dedicated directory, since the store deletes its contents.");
    assertThat(foreign.resolve("notes.txt")).hasContent("keep me");
  }

  @Test
  void twoOpenStoresCannotShareALocalDirectory() throws Exception {
    try (StateStore first = open(StateStore.INITIAL_VERSION)) {
      first.put(b("k"), b("v"));

      assertThatThrownBy(() -> StateStore.open(store, "window-2", -1, dir.resolve("work")))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage(
              "State store of operator window-2 cannot use local directory "
                  + dir.resolve("work").toAbsolutePath().normalize()
                  + ": the open state store of"
                  + " operator dedup-1 uses it. Give every operator (and every pipeline) its own"
                  + " directory, or close the other store first.");
      assertThat(first.get(b("k"))).isEqualTo(b("v"));
      first.commit(0);
    }
    try (StateStore reopened = open(0)) {
      assertThat(reopened.get(b("k"))).isEqualTo(b("v"));
    }
  }

  @Test
  void invalidOperatorIdsAreRefused() {
    assertThatThrownBy(() -> StateStore.open(store, "../escape", -1, dir))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid state operator id '../escape': use 1 to 200 letters, digits, '.',"
                + " '_' or '-' (not only dots)");
  }

  @Test
  void aClosedStoreRefusesUse() throws Exception {
    StateStore state = open(StateStore.INITIAL_VERSION);
    StateIterator it = state.scan(new byte[0]);
    state.close();

    assertThat(it.hasNext()).isFalse();
    assertThatThrownBy(() -> state.get(b("k")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("State store of operator dedup-1 is closed");
    try (var left = Files.list(dir.resolve("work"))) {
      assertThat(left).as("working copy deleted on close").isEmpty();
    }
  }

  /** Opens {@code operatorId} at {@code version} in its own local directory. */
  private StateStore openOperator(String operatorId, long version, String localDir)
      throws Exception {
    return StateStore.open(store, operatorId, version, dir.resolve(localDir), 4);
  }

  @Test
  void deletesOfKnownSizesRecordWhatPlainDeletesRecordAndKeepTheSameMetrics() throws Exception {
    // Two operators get the same data; one deletes with delete/deleteRange, which read the old
    // values for the metrics, the other with deleteKnown/deleteKnownRange and sizes from a model.
    Random random = new Random(7);
    TreeMap<byte[], byte[]> model = newModel();
    for (int i = 0; i < 200; i++) {
      byte[] value = new byte[random.nextInt(40)];
      random.nextBytes(value);
      model.put(b(String.format("%s/%03d", i % 2 == 0 ? "r" : "t", i)), value);
    }
    byte[][] keys = model.keySet().toArray(new byte[0][]);
    byte[][] values = model.values().toArray(new byte[0][]);
    try (StateStore plain = openOperator("plain-1", StateStore.INITIAL_VERSION, "plain");
        StateStore known = openOperator("known-1", StateStore.INITIAL_VERSION, "known")) {
      plain.insertAll(keys, values);
      known.insertAll(keys, values);
      plain.commit(0);
      known.commit(0);

      List<byte[]> doomed = new ArrayList<>();
      for (byte[] key : model.keySet()) {
        if (s(key).startsWith("r/") && random.nextInt(3) == 0) {
          doomed.add(key);
        }
      }
      for (byte[] key : doomed) {
        plain.delete(key);
        known.deleteKnown(key, model.get(key).length);
        model.remove(key);
      }
      byte[] from = b("t/050");
      byte[] to = b("t/150");
      long rangeKeys = 0;
      long rangeBytes = 0;
      for (Map.Entry<byte[], byte[]> e : model.subMap(from, to).entrySet()) {
        rangeKeys++;
        rangeBytes += e.getKey().length + e.getValue().length;
      }
      assertThat(plain.deleteRange(from, to)).isEqualTo(rangeKeys).isPositive();
      known.deleteKnownRange(from, to, rangeKeys, rangeBytes);
      model.subMap(from, to).clear();
      // An empty range records nothing either way.
      assertThat(plain.deleteRange(b("x"), b("y"))).isZero();
      known.deleteKnownRange(b("x"), b("y"), 0, 0);

      assertThat(known.metrics()).isEqualTo(plain.metrics());
      assertThat(known.metrics().keys()).isEqualTo(model.size());
      assertThat(contents(known, new byte[0])).isEqualTo(contents(model, ""));
      plain.commit(1);
      known.commit(1);
      assertThat(store.read("state/known-1/" + String.format("%020d", 1) + ".delta"))
          .as("the same changelog")
          .isEqualTo(store.read("state/plain-1/" + String.format("%020d", 1) + ".delta"));
    }
    try (StateStore plain = openOperator("plain-1", 1, "plain");
        StateStore known = openOperator("known-1", 1, "known")) {
      assertThat(contents(known, new byte[0])).isEqualTo(contents(model, ""));
      assertThat(known.metrics()).isEqualTo(plain.metrics());
    }
  }

  @Test
  void wrongKnownSizesOnlyMisstateTheMetricsUntilTheNextOpen() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      state.insertAll(
          new byte[][] {b("a"), b("t/1"), b("t/2")}, new byte[][] {b("12345"), b("x"), b("y")});
      state.commit(0);

      state.deleteKnown(b("a"), 2); // the value is 5 bytes long
      state.deleteKnownRange(b("t/"), b("t/~"), 1, 3); // 2 keys, 8 bytes

      assertThat(state.get(b("a"))).isNull();
      assertThat(contents(state, b("t/"))).isEmpty();
      assertThat(state.metrics().keys()).isEqualTo(1);
      assertThat(state.metrics().bytes()).isEqualTo(14 - 3 - 3);
      state.commit(1);
    }
    try (StateStore reopened = open(1)) {
      assertThat(reopened.metrics().keys()).isZero();
      assertThat(reopened.metrics().bytes()).isZero();
    }
  }

  @Test
  void negativeKnownSizesAreRefused() throws Exception {
    try (StateStore state = open(StateStore.INITIAL_VERSION)) {
      assertThatThrownBy(() -> state.deleteKnown(b("a"), -1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("valueLength must be >= 0, got -1");
      assertThatThrownBy(() -> state.deleteKnownRange(b("a"), b("b"), 1, -2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("keyCount and byteCount must be >= 0, got 1 and -2");
    }
  }
}
