package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.testing.KafkaBrokerProcess;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DeltaLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once proof for the merging sinks ({@code write: upsert}, with copy-on-write and with
 * deletion vectors, and {@code history: scd2}): the kills of {@link ExactlyOnceCrashIT}, with
 * tables that must hold the latest version of every key, or every version of it, exactly once. (A
 * class of its own so that the two halves run in the two Failsafe JVMs side by side.)
 */
class UpsertCrashIT {
  /** The upsert pipeline: 50 keys, each record a new version of its key, ordered by its id. */
  private static final String UPSERT =
      """
      transform:
        - derive: { k: "id % 50" }
      sink:
        delta:
          write: upsert
          key: [k]
          sequence-by: id
      """;

  /**
   * The history pipeline: the upsert's keys, each record a version of its key dated by its id (in
   * seconds), kept with {@code history: scd2}.
   */
  private static final String HISTORY =
      """
      transform:
        - derive: { k: "id % 50", at: "CAST(id AS timestamp)" }
      sink:
        delta:
          write: upsert
          key: [k]
          sequence-by: at
          history: scd2
      """;

  @TempDir static Path dir;
  static KafkaBrokerProcess broker;

  @BeforeAll
  static void broker() throws Exception {
    broker = KafkaBrokerProcess.shared();
  }

  /**
   * {@code write: upsert} under the same kills: every batch is one MERGE commit with the batch's
   * txn, so a replayed batch must be skipped, not merged again, and a batch must never be half
   * merged. Records spread over three partitions and are ordered by {@code sequence-by}, so the
   * table must end with exactly one row per key: the valid record with the highest id.
   */
  @Test
  void upsertTableHoldsTheLatestVersionOfEveryKeyAfterRepeatedKills() throws Exception {
    CrashFixture fixture = upsertAfterKills("upsert", UPSERT, 20261202L, id -> id % 50);
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      assertThat(DeltaTable.open(sink, TableOptions.defaults()).snapshot().files())
          .as("copy-on-write leaves no deletion vector")
          .noneMatch(f -> f.deletionVector() != null);
    }
  }

  /**
   * The same kills with {@code merge-strategy: deletion-vectors}: each batch marks the replaced
   * rows in a deletion vector file written before the commit, so a kill after it leaves an orphan
   * vector file and a replay must not mark again.
   */
  @Test
  void deletionVectorUpsertTableHoldsTheLatestVersionOfEveryKeyAfterRepeatedKills()
      throws Exception {
    // Two versions a key (ids 2j and 2j + 1): a batch that reads a key's second version marks one
    // row of an earlier file whose other keys are done, so vectors are certain whenever a pair
    // straddles a batch cut. (With 50 keys every batch replaced every row of a file: the files
    // were removed whole and no vector was ever written, by chance of the cuts.)
    CrashFixture fixture =
        upsertAfterKills(
            "upsert-dv",
            UPSERT.replace("id % 50", "id - id % 2") + "    merge-strategy: deletion-vectors\n",
            20261203L,
            id -> id - id % 2);
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      var snapshot = DeltaTable.open(sink, TableOptions.defaults()).snapshot();
      assertThat(snapshot.state().protocol().supports("deletionVectors")).isTrue();
      // Searched in every commit, not the final state: a vector may be dropped later when its
      // file's last rows are replaced (the file is then removed whole).
      DeltaLog log = new DeltaLog(sink);
      boolean marked = false;
      for (long v = 0; v <= snapshot.version() && !marked; v++) {
        marked =
            log.readCommit(v).stream()
                .anyMatch(a -> a instanceof AddFile add && add.deletionVector() != null);
      }
      assertThat(marked).as("the merges marked rows in deletion vectors").isTrue();
    }
  }

  /**
   * Runs an upsert pipeline under 14 kills (every crash point once, and as many random kills) and
   * checks that the table holds exactly the latest valid version of every key ({@code key} is the
   * pipeline's derive of {@code k}).
   */
  private CrashFixture upsertAfterKills(
      String name, String transformAndWrite, long seed, LongUnaryOperator key) throws Exception {
    Path work = dir.resolve(name);
    Files.createDirectories(work);
    CrashFixture fixture =
        new CrashFixture(
            broker,
            "orders-" + name,
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "",
            transformAndWrite);
    fixture.runWithKills(14, new Random(seed));
    Map<Long, Long> latest = new HashMap<>();
    for (long id : fixture.validIds) {
      latest.merge(key.applyAsLong(id), id, Math::max);
    }
    Map<Long, Long> held = new HashMap<>();
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null);
        ObjectStore quarantine = ObjectStores.open(fixture.quarantinePath, null)) {
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, k, _kafka_topic, _kafka_partition, _kafka_offset, _kafka_timestamp
        assertThat(held.put((Long) row[2], (Long) row[0])).as("key %s held once", row[2]).isNull();
      }
      assertThat(held).as("the latest valid version of every key").isEqualTo(latest);
      Map<String, Integer> quarantined = new HashMap<>();
      for (Object[] row : TableContents.rows(quarantine)) {
        quarantined.merge(row[1] + "/" + row[2], 1, Integer::sum);
      }
      assertThat(quarantined.values()).as("no offset twice in quarantine").allMatch(c -> c == 1);
      assertThat(quarantined.keySet()).isEqualTo(fixture.malformedOffsets);
    }
    return fixture;
  }

  /**
   * {@code history: scd2} under the same kills: a batch closes and opens versions in one commit; a
   * replayed batch must neither open a version twice nor close one at the wrong time. The table
   * must end with every valid record as a version of its key, valid until the key's next record.
   */
  @Test
  void historyTableHoldsEveryVersionOfEveryKeyAfterRepeatedKills() throws Exception {
    Path work = dir.resolve("history");
    Files.createDirectories(work);
    CrashFixture fixture =
        new CrashFixture(
            broker,
            "orders-history",
            work,
            work.resolve("tables/orders").toString(),
            work.resolve("tables/orders-quarantine").toString(),
            work.resolve("checkpoint").toString(),
            "",
            HISTORY);
    fixture.runWithKills(14, new Random(20261203L));
    Map<Long, TreeSet<Long>> idsByKey = new TreeMap<>();
    for (long id : fixture.validIds) {
      idsByKey.computeIfAbsent(id % 50, k -> new TreeSet<>()).add(id);
    }
    Set<String> expected = new TreeSet<>();
    idsByKey.forEach(
        (k, ids) -> {
          Long previous = null;
          for (long id : ids) {
            if (previous != null) {
              expected.add(k + " " + previous + " [" + previous + ", " + id + ")");
            }
            previous = id;
          }
          expected.add(k + " " + previous + " [" + previous + ", -) current");
        });
    try (ObjectStore sink = ObjectStores.open(fixture.sinkPath, null)) {
      Set<String> held = new TreeSet<>();
      for (Object[] row : TableContents.rows(sink)) {
        // columns: id, name, k, at, _kafka_* (4), _valid_from, _valid_to, _is_current
        Instant to = (Instant) row[9];
        String version =
            row[2]
                + " "
                + row[0]
                + " ["
                + ((Instant) row[8]).getEpochSecond()
                + ", "
                + (to == null ? "-" : Long.toString(to.getEpochSecond()))
                + ")"
                + (Boolean.TRUE.equals(row[10]) ? " current" : "");
        assertThat(held.add(version)).as("%s held once", version).isTrue();
      }
      assertThat(held).as("every valid record as a version of its key").isEqualTo(expected);
    }
  }
}
