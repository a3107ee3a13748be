package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deduplicator's chunked path (filter, batched lookups, the worker thread) against a plain set:
 * every layout, chunks smaller than the batches, duplicates inside a chunk and across chunks,
 * batches, evictions and a reload from the checkpoint.
 */
class DeduplicatorTest {
  private static final long MINUTE = 60_000_000L;

  @TempDir Path dir;

  @Test
  void recentKeysNeverForgetsAKeyItHoldsAndDropsOnlyPassedBuckets() {
    RecentKeys keys = new RecentKeys(10 * MINUTE);
    Random random = new Random(7);
    List<byte[]> added = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) { // several filter blocks per bucket
      byte[] key = ("k" + random.nextLong()).getBytes(StandardCharsets.UTF_8);
      keys.add(i % 3 * 10 * MINUTE, key);
      added.add(key);
    }
    for (int i = 0; i < added.size(); i++) {
      assertThat(keys.mightContain(i % 3 * 10 * MINUTE, added.get(i))).isTrue();
    }
    int falsePositives = 0;
    for (int i = 0; i < 100_000; i++) {
      falsePositives +=
          keys.mightContain(0, ("other" + i).getBytes(StandardCharsets.UTF_8)) ? 1 : 0;
    }
    assertThat(falsePositives).as("false positives of 100,000 absent keys").isLessThan(3_000);

    keys.evictBelow(20 * MINUTE); // buckets [0, 10) and [10, 20) minutes have passed
    assertThat(keys.mightContain(0, added.get(0))).isFalse();
    assertThat(keys.mightContain(10 * MINUTE, added.get(1))).isFalse();
    assertThat(keys.mightContain(20 * MINUTE, added.get(2))).isTrue();
  }

  @Test
  void chunkedDeduplicationMatchesASetInEveryLayout() throws Exception {
    for (Deduplicator.Expiry expiry : Deduplicator.Expiry.values()) {
      runAgainstModel(expiry, dir.resolve(expiry.name()));
    }
  }

  private void runAgainstModel(Deduplicator.Expiry expiry, Path root) throws Exception {
    ObjectStore checkpoint =
        ObjectStores.open(Files.createDirectories(root.resolve("checkpoint")).toString(), null);
    Random random = new Random(expiry.ordinal());
    Set<String> seen = new HashSet<>();
    StateStore store =
        StateStore.open(checkpoint, "dedup", StateStore.INITIAL_VERSION, root.resolve("local"));
    RecentKeys filter = new RecentKeys(MINUTE);
    try (DedupStage stage = new DedupStage(5)) {
      for (int batch = 0; batch < 6; batch++) {
        if (batch == 3) { // a restart: state reloaded from the checkpoint, the filter refilled
          store.close();
          store = StateStore.open(checkpoint, "dedup", 2, root.resolve("local"));
          filter = new RecentKeys(MINUTE);
          Deduplicator.fill(store, filter);
        }
        Deduplicator dedup = new Deduplicator(store, new int[] {0, 1}, expiry, 0, filter);
        stage.begin(dedup);
        List<Object[]> survivors = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 23; i++) {
          String id = "id-" + random.nextInt(30);
          long time = random.nextInt(3) * MINUTE;
          Object[] row = {id, Times.instant(time)};
          String key = id + "@" + time;
          if (seen.add(key)) {
            expected.add(key);
          }
          DedupStage.Done done = stage.add(row, time);
          if (done != null) {
            collect(done, survivors);
          }
        }
        for (DedupStage.Done done : stage.drain()) {
          collect(done, survivors);
        }
        assertThat(survivors)
            .extracting(r -> r[0] + "@" + Times.micros((Instant) r[1]))
            .as("%s batch %d", expiry, batch)
            .containsExactlyElementsOf(expected);
        store.commit(batch);
      }
    } finally {
      store.close();
    }
  }

  private static void collect(DedupStage.Done done, List<Object[]> survivors) {
    for (int i = 0; i < done.size(); i++) {
      if (done.first()[i]) {
        survivors.add(done.rows()[i]);
      }
    }
  }
}
