package dev.tributary.table;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Shared schema, rows and helpers of the table tests. */
final class TestTables {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING),
          StructField.nullable("ts", PrimitiveType.TIMESTAMP),
          StructField.nullable("region", PrimitiveType.STRING));

  private TestTables() {}

  static TableOptions fastOptions(Clock clock) {
    return TableOptions.defaults()
        .withCommitRetry(
            TableOptions.DEFAULT_COMMIT_RETRY
                .withMaxAttempts(200)
                .withBackoff(Duration.ofNanos(1000), Duration.ofMillis(2)))
        .withClock(clock);
  }

  static Object[] row(long id, String region) {
    return new Object[] {
      id, "name-" + id, Instant.ofEpochSecond(1_700_000_000L + id, 123_000), region
    };
  }

  /** Appends rows with ids [from, to) spread over regions EU, US and null. */
  static CommitResult append(DeltaTable table, String appId, long batch, long from, long to)
      throws IOException {
    try (AppendTransaction tx = table.newAppend(new TransactionId(appId, batch))) {
      for (long id = from; id < to; id++) {
        tx.write(row(id, id % 3 == 0 ? "EU" : id % 3 == 1 ? "US" : null));
      }
      return tx.commit(Map.of("batch", String.valueOf(batch)));
    }
  }

  /** Every row of the snapshot, sorted by id. */
  static List<Object[]> rows(ObjectStore store, Snapshot snapshot) throws IOException {
    List<Object[]> rows = new ArrayList<>();
    for (DataFile f : snapshot.files()) {
      try (CloseableIterator<Object[]> it = DataFiles.read(store, f, snapshot.schema())) {
        it.forEachRemaining(rows::add);
      }
    }
    rows.sort(Comparator.comparingLong(r -> (Long) r[0]));
    return rows;
  }

  static List<Long> ids(List<Object[]> rows) {
    return rows.stream().map(r -> (Long) r[0]).toList();
  }

  static String show(Object[] row) {
    return Arrays.toString(row);
  }

  /** A clock tests move by hand. */
  static final class MutableClock extends Clock {
    private volatile Instant now;

    MutableClock(Instant start) {
      this.now = start;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
