package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.state.StateEntry;
import dev.tributary.checkpoint.state.StateIterator;
import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.service.stateful.JoinState.Side;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The join state's layout on a real store: order, lookups, eviction, counters, replays. */
class JoinStateTest {
  private static final String OP = StreamJoinOperator.OPERATOR_ID;

  @TempDir Path dir;
  private ObjectStore checkpoint;
  private StateStore store;

  @BeforeEach
  void open() throws IOException {
    checkpoint = ObjectStores.open(dir.resolve("checkpoint").toString(), S3Settings.defaults());
    store = StateStore.open(checkpoint, OP, StateStore.INITIAL_VERSION, dir.resolve("local"));
  }

  @AfterEach
  void close() throws IOException {
    store.close();
    checkpoint.close();
  }

  private static byte[] key(Object... values) {
    return Codec.key(values, indexes(values.length));
  }

  private static int[] indexes(int n) {
    int[] c = new int[n];
    Arrays.setAll(c, i -> i);
    return c;
  }

  private static List<Long> times(JoinState state, Side side, byte[] key) {
    List<Long> times = new ArrayList<>();
    try (JoinState.Lookup l = state.lookup(side, key)) {
      for (JoinState.Stored s = l.next(); s != null; s = l.next()) {
        times.add(s.timeMicros());
        assertThat(s.row()[1]).isEqualTo(s.timeMicros()); // the row stored with the time
      }
    }
    return times;
  }

  @Test
  void lookupsReturnTheKeysRowsInTimeOrderNegativeTimesFirst() {
    JoinState state = new JoinState(store, 2, 2);
    long[] times = {5, -1, Long.MIN_VALUE + 1, 0, -3_600_000_000L, Long.MAX_VALUE - 1, 1, -2};
    for (int i = 0; i < times.length; i++) {
      state.append(Side.LEFT, key("u1"), times[i], 0, i, false, new Object[] {"u1", times[i]});
    }
    // a key whose encoding extends "u1"'s bytes, and the other side under the same key
    state.append(Side.LEFT, key("u10"), 3, 0, 99, false, new Object[] {"u10", 3L});
    state.append(Side.RIGHT, key("u1"), 4, 0, 0, false, new Object[] {"u1", 4L});

    long[] sorted = times.clone();
    Arrays.sort(sorted);
    assertThat(times(state, Side.LEFT, key("u1")))
        .containsExactly(Arrays.stream(sorted).boxed().toArray(Long[]::new));
    assertThat(times(state, Side.LEFT, key("u10"))).containsExactly(3L);
    assertThat(times(state, Side.RIGHT, key("u1"))).containsExactly(4L);
    assertThat(times(state, Side.RIGHT, key("u2"))).isEmpty();
  }

  @Test
  void equalRowsAreKeptApartByBatchAndOrdinal() {
    JoinState state = new JoinState(store, 2, 2);
    Object[] row = {"u1", 7L};
    state.append(Side.LEFT, key("u1"), 7, 0, 0, false, row);
    state.append(Side.LEFT, key("u1"), 7, 0, 1, false, row);
    state.append(Side.LEFT, key("u1"), 7, 1, 0, false, row);
    assertThat(times(state, Side.LEFT, key("u1"))).containsExactly(7L, 7L, 7L);
    assertThat(state.rows(Side.LEFT)).isEqualTo(3);
  }

  @Test
  void nullKeysAreStoredUnderTheirOwnEncoding() {
    JoinState state = new JoinState(store, 2, 2);
    state.append(Side.LEFT, key((Object) null), 1, 0, 0, false, new Object[] {null, 1L});
    state.append(Side.LEFT, key(""), 2, 0, 1, false, new Object[] {"", 2L});
    assertThat(times(state, Side.LEFT, key((Object) null))).containsExactly(1L);
    assertThat(times(state, Side.LEFT, key(""))).containsExactly(2L);
  }

  @Test
  void matchedFlagsAreSetInState() {
    JoinState state = new JoinState(store, 2, 2);
    state.append(Side.RIGHT, key("u1"), 1, 0, 0, false, new Object[] {"u1", 1L});
    state.append(Side.RIGHT, key("u1"), 2, 0, 1, true, new Object[] {"u1", 2L});
    state.append(Side.RIGHT, key("u1"), 3, 0, 2, false, new Object[] {"u1", 3L});
    long bytes = state.bytes(Side.RIGHT);
    try (JoinState.Lookup l = state.lookup(Side.RIGHT, key("u1"))) {
      assertThat(l.next().matched()).isFalse();
      JoinState.Stored second = l.next();
      assertThat(second.matched()).isTrue();
      JoinState.Stored third = l.next();
      assertThat(third.matched()).isFalse();
      third.markMatched();
    }
    List<Boolean> flags = new ArrayList<>();
    try (JoinState.Lookup l = state.lookup(Side.RIGHT, key("u1"))) {
      for (JoinState.Stored s = l.next(); s != null; s = l.next()) {
        flags.add(s.matched());
      }
    }
    assertThat(flags).containsExactly(false, true, true);
    assertThat(state.bytes(Side.RIGHT)).isEqualTo(bytes);
  }

  @Test
  void evictionRemovesExactlyTheRowsAtOrBeforeTheWatermarkAndHandsThemOverInTimeOrder()
      throws IOException {
    JoinState state = new JoinState(store, 2, 2);
    long[] times = {10, -5, 0, 11, -6, 10, 12};
    for (int i = 0; i < times.length; i++) {
      String user = "u" + (i % 3);
      state.append(Side.LEFT, key(user), times[i], 0, i, i == 2, new Object[] {user, times[i]});
      state.append(Side.RIGHT, key(user), times[i], 0, i, false, new Object[] {user, times[i]});
    }
    List<String> evicted = new ArrayList<>();
    long removed =
        state.evict(Side.LEFT, 10, (matched, row) -> evicted.add(row[1] + (matched ? "m" : "")));
    assertThat(removed).isEqualTo(5);
    assertThat(evicted).containsExactly("-6", "-5", "0m", "10", "10");
    assertThat(state.rows(Side.LEFT)).isEqualTo(2);
    List<Long> left = new ArrayList<>();
    for (String user : List.of("u0", "u1", "u2")) {
      left.addAll(times(state, Side.LEFT, key(user)));
    }
    assertThat(left).containsExactlyInAnyOrder(11L, 12L);
    // the index holds exactly the kept rows
    assertThat(entries(new byte[] {'L', 'T'})).hasSize(2);
    // the other side is untouched; an eviction without a receiver reads no rows but counts
    assertThat(state.rows(Side.RIGHT)).isEqualTo(7);
    assertThat(state.evict(Side.RIGHT, -6, null)).isEqualTo(1);
    assertThat(state.evict(Side.RIGHT, -6, null)).isZero();
    assertThat(state.evict(Side.RIGHT, Long.MAX_VALUE, null)).isEqualTo(6);
    assertThat(entries(new byte[] {'R'})).isEmpty();
  }

  @Test
  void countersAreTheStoresBytesAndSurviveAReopen() throws IOException {
    JoinState state = new JoinState(store, 3, 2);
    for (int i = 0; i < 20; i++) {
      state.append(
          Side.LEFT, key("u" + i % 4), i, 0, i, false, new Object[] {"u" + i % 4, (long) i, "x"});
      if (i % 2 == 0) {
        state.append(Side.RIGHT, key("u" + i % 4), i, 0, i, false, new Object[] {"u", (long) i});
      }
    }
    state.evict(Side.LEFT, 4, null);
    state.writeCounters();
    long counted = state.bytes(Side.LEFT) + state.bytes(Side.RIGHT);
    long counterEntries = 2 * (2 + 16);
    assertThat(store.metrics().bytes()).isEqualTo(counted + counterEntries);
    assertThat(store.metrics().keys())
        .isEqualTo(2 * (state.rows(Side.LEFT) + state.rows(Side.RIGHT)) + 2);
    long leftRows = state.rows(Side.LEFT);
    long leftBytes = state.bytes(Side.LEFT);
    assertThat(leftRows).isEqualTo(15);
    store.commit(0);

    store.close();
    store = StateStore.open(checkpoint, OP, 0, dir.resolve("local"));
    JoinState reopened = new JoinState(store, 3, 2);
    assertThat(reopened.rows(Side.LEFT)).isEqualTo(leftRows);
    assertThat(reopened.bytes(Side.LEFT)).isEqualTo(leftBytes);
    assertThat(reopened.rows(Side.RIGHT)).isEqualTo(10);
    assertThat(store.metrics().bytes()).isEqualTo(counted + counterEntries);
  }

  @Test
  void aReplayedBatchWritesTheSameChangelog() throws IOException {
    JoinState first = new JoinState(store, 2, 2);
    batchOne(first, 0);
    first.writeCounters();
    assertThat(store.commit(0)).isTrue();

    JoinState second = new JoinState(store, 2, 2);
    batchTwo(second, "b");
    second.writeCounters();
    assertThat(store.commit(1)).isTrue();

    // the same batch again from version 0: identical changes, so the commit is the no-op success
    store.close();
    store = StateStore.open(checkpoint, OP, 0, dir.resolve("local"));
    JoinState replay = new JoinState(store, 2, 2);
    batchTwo(replay, "b");
    replay.writeCounters();
    assertThat(store.commit(1)).as("same changelog").isTrue();

    // other changes are told apart (so the check above could fail)
    store.close();
    store = StateStore.open(checkpoint, OP, 0, dir.resolve("local"));
    JoinState other = new JoinState(store, 2, 2);
    batchTwo(other, "c");
    other.writeCounters();
    assertThat(store.commit(1)).as("other changelog").isFalse();
  }

  private static void batchOne(JoinState state, long batch) {
    for (int i = 0; i < 6; i++) {
      state.append(Side.LEFT, key("u" + i % 2), i, batch, i, false, new Object[] {"a", (long) i});
    }
  }

  private static void batchTwo(JoinState state, String value) throws IOException {
    try (JoinState.Lookup l = state.lookup(Side.LEFT, key("u1"))) {
      l.next().markMatched();
    }
    state.append(Side.RIGHT, key("u1"), 3, 1, 0, true, new Object[] {value, 3L});
    state.evict(Side.LEFT, 2, (matched, row) -> {});
  }

  private List<StateEntry> entries(byte[] prefix) {
    List<StateEntry> out = new ArrayList<>();
    try (StateIterator it = store.scan(prefix)) {
      it.forEachRemaining(out::add);
    }
    return out;
  }
}
