package dev.tributary.service.server;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.SinkTables;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.log.StatsJson;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What the status page shows of a served pipeline's tables: the sink table's recent commits and a
 * sample of the newest quarantined records. Read-only: it lists and reads log and data files, never
 * writes. Commits never change once written, so each one read is kept (bounded) and a page that
 * polls reads only the new ones; the listing starts near the version the pipeline's last batch
 * committed, so a long log is not listed from its start at every poll.
 */
final class TableViews {
  /** The most commits or quarantined records one request may ask for. */
  static final int MAX_LAST = 50;

  /** How much of a quarantined value is shown. */
  static final int MAX_VALUE_CHARS = 500;

  /** A routed sink's tables looked at, at most (the page shows the newest commits among them). */
  static final int MAX_ROUTED_TABLES = 20;

  /** How many of the quarantine table's newest files are read for a sample, at most. */
  private static final int MAX_QUARANTINE_FILES = 5;

  private static final int CACHED_COMMITS = 1024;

  /**
   * The pipeline a view is of: a served one, or the one of {@code run --ui-port}.
   *
   * @param id the pipeline id
   * @param spec its declaration (empty for a file that could not be parsed)
   * @param progress its recent batches
   * @param masking masks the declaration's secrets in a text shown
   */
  record Viewed(
      String id, Optional<PipelineSpec> spec, ProgressLog progress, UnaryOperator<String> masking) {
    static Viewed of(ManagedPipeline p) {
      return new Viewed(p.id(), p.spec(), p.progress(), p::mask);
    }

    String mask(String text) {
      return masking.apply(text);
    }
  }

  private final Map<String, SinkCommit> commits =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, SinkCommit> eldest) {
          return size() > CACHED_COMMITS;
        }
      };

  /**
   * The newest {@code last} commits of the pipeline's Delta sink table (of every routed table, at
   * most {@value #MAX_ROUTED_TABLES}), newest first. Empty without a Delta sink or before the table
   * exists.
   *
   * @throws IOException if the table's store cannot be listed or read
   */
  List<SinkCommit> recentCommits(Viewed p, int last) throws IOException {
    Optional<PipelineSpec> spec = p.spec().filter(s -> s.deltaSink().isPresent());
    if (spec.isEmpty()) {
      return List.of();
    }
    long known =
        p.progress().last(1).stream().mapToLong(BatchProgress::sinkVersion).max().orElse(-1);
    List<SinkCommit> out = new ArrayList<>();
    try (ObjectStore store = SinkTables.openStore(spec.get())) {
      List<SinkTables.Table> tables = SinkTables.in(spec.get(), store);
      boolean routed = spec.get().sink().route().isPresent();
      for (SinkTables.Table t : tables.subList(0, Math.min(tables.size(), MAX_ROUTED_TABLES))) {
        out.addAll(commitsOf(p, t, routed ? -1 : known, last));
      }
    }
    out.sort(
        Comparator.comparing(
                SinkCommit::timestamp, Comparator.nullsFirst(Comparator.<Instant>naturalOrder()))
            .thenComparingLong(SinkCommit::version)
            .reversed());
    return List.copyOf(out.subList(0, Math.min(out.size(), last)));
  }

  private List<SinkCommit> commitsOf(Viewed p, SinkTables.Table t, long known, int last)
      throws IOException {
    DeltaLog log = new DeltaLog(t.store());
    // Listing after a version just below the last known one finds the newest commits without
    // listing the whole log; a table that was re-created below it is listed from its start.
    List<Long> versions = known > last ? log.commitsAfter(known - last - 1) : List.of();
    if (versions.isEmpty()) {
      versions = log.commitsAfter(-1);
    }
    List<SinkCommit> out = new ArrayList<>();
    String location = p.mask(t.location());
    for (int i = versions.size() - 1; i >= 0 && out.size() < last; i--) {
      long version = versions.get(i);
      String key = t.store().location() + "@" + version;
      SinkCommit cached;
      synchronized (commits) {
        cached = commits.get(key);
      }
      if (cached == null) {
        cached = commit(p.id(), location, version, log.readCommit(version));
        synchronized (commits) {
          commits.put(key, cached);
        }
      }
      out.add(cached);
    }
    return out;
  }

  /** One commit's summary from its actions. */
  static SinkCommit commit(String pipelineId, String table, long version, List<Action> actions) {
    Instant timestamp = null;
    String operation = null;
    Long batchId = null;
    int added = 0;
    int removed = 0;
    long rows = 0;
    long bytes = 0;
    for (Action a : actions) {
      if (a instanceof CommitInfo info) {
        if (info.values().get("timestamp") instanceof Number n) {
          timestamp = Instant.ofEpochMilli(n.longValue());
        }
        if (info.values().get("operation") instanceof String op) {
          operation = op;
        }
      } else if (a instanceof AddFile add) {
        added++;
        bytes += add.size();
        rows += Math.max(0, numRecords(add.stats()));
      } else if (a instanceof RemoveFile) {
        removed++;
      } else if (a instanceof SetTransaction txn
          && (txn.appId().equals(pipelineId) || txn.appId().startsWith(pipelineId + "@"))) {
        batchId = txn.version();
      }
    }
    return new SinkCommit(
        table, version, timestamp, operation, batchId, added, removed, rows, bytes);
  }

  private static long numRecords(String stats) {
    try {
      return StatsJson.numRecords(stats);
    } catch (IllegalArgumentException e) {
      return -1; // a writer's malformed stats do not make the commit unreadable here
    }
  }

  /**
   * The newest {@code last} records of the pipeline's quarantine table, newest first (from its
   * {@value #MAX_QUARANTINE_FILES} newest files at most). Empty before the table exists.
   *
   * @throws IOException if the table cannot be read
   */
  List<QuarantineSample> quarantineSamples(Viewed p, int last) throws IOException {
    if (p.spec().isEmpty()) {
      return List.of();
    }
    PipelineSpec spec = p.spec().get();
    try (ObjectStore store = PipelineFactory.store(spec, spec.quarantine().path())) {
      Optional<Snapshot> found =
          DeltaTable.open(store, PipelineFactory.tableOptions(spec)).snapshotIfExists();
      if (found.isEmpty()) {
        return List.of();
      }
      Snapshot snapshot = found.get();
      List<DataFile> files = new ArrayList<>(snapshot.files());
      files.sort(
          Comparator.comparingLong(DataFile::modificationTime)
              .thenComparing(DataFile::path)
              .reversed());
      List<QuarantineSample> out = new ArrayList<>();
      for (DataFile f : files.subList(0, Math.min(files.size(), MAX_QUARANTINE_FILES))) {
        out.addAll(newestRows(p, store, f, snapshot, last - out.size()));
        if (out.size() >= last) {
          break;
        }
      }
      return List.copyOf(out);
    }
  }

  /** The last {@code n} rows of one file, newest (last written) first. */
  private static List<QuarantineSample> newestRows(
      Viewed p, ObjectStore store, DataFile file, Snapshot snapshot, int n) throws IOException {
    StructType schema = snapshot.schema();
    Deque<Object[]> tail = new ArrayDeque<>(n);
    try (RowIterator rows = DataFiles.read(store, file, schema, snapshot.columnMapping())) {
      while (rows.hasNext()) {
        if (tail.size() == n) {
          tail.removeFirst();
        }
        tail.addLast(rows.next());
      }
    }
    List<QuarantineSample> out = new ArrayList<>(tail.size());
    for (var it = tail.descendingIterator(); it.hasNext(); ) {
      out.add(sample(p, schema, it.next()));
    }
    return out;
  }

  /** A quarantine row of either layout ({@code QuarantineRows}), read by column name. */
  static QuarantineSample sample(Viewed p, StructType schema, Object[] row) {
    Map<String, Object> byName = new LinkedHashMap<>();
    for (int i = 0; i < schema.size() && i < row.length; i++) {
      byName.put(schema.fields().get(i).name(), row[i]);
    }
    String source;
    Object value;
    if (byName.containsKey("topic")) {
      source = byName.get("topic") + "/" + byName.get("partition") + "@" + byName.get("offset");
      value = byName.get("value");
    } else {
      source = byName.get("source_file") + "#" + byName.get("source_row");
      value = byName.get("row");
    }
    String text =
        value instanceof byte[] bytes
            ? new String(bytes, StandardCharsets.UTF_8)
            : value == null ? null : value.toString();
    if (text != null && text.length() > MAX_VALUE_CHARS) {
      text = text.substring(0, MAX_VALUE_CHARS) + "…";
    }
    return new QuarantineSample(
        p.mask(source),
        text,
        byName.get("error") == null ? null : p.mask(byName.get("error").toString()),
        byName.get("batch_id") instanceof Long l ? l : null,
        byName.get("quarantined_at") instanceof Instant at ? at : null);
  }
}
