package dev.tributary.service.replay;

import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.table.CommitConflictException;
import dev.tributary.table.CommitResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TransactionId;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.RowIterator;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * One {@code replay-quarantine} of a stateless pipeline with one Delta sink (docs/DESIGN.md,
 * "Replaying the quarantine"). The protocol, with {@code R = <pipeline>/replay} the app id of both
 * tables' replay {@code txn}s, {@code s} the version the sink holds for it and {@code q} the one
 * the quarantine table holds (0 when absent):
 *
 * <ol>
 *   <li>If {@code s > q}, run {@code s} committed to the sink and died before its quarantine
 *       commit: complete it. Its sink commit's {@code commitInfo} names its records ({@link
 *       #RECORDS_KEY}); one merge commit, {@code txn(R, s)}, deletes them from the quarantine.
 *   <li>Run {@code n = max(s, q) + 1}: read the quarantine at its latest version, select rows with
 *       {@code --where}, and pass each record through the pipeline's processor (parse, transform,
 *       expectations, the sink's row checks), as the live pipeline would.
 *   <li>If any record came through: one sink append, {@code txn(R, n)}, with their rows and their
 *       provenance in {@code commitInfo}. A sink that already holds {@code txn(R, n)} means another
 *       replay won run {@code n}: this one writes nothing and completes that run (step 1).
 *   <li>One merge commit of the quarantine table, {@code txn(R, n)}: the replayed records deleted,
 *       the still-failing ones rewritten with their new error (copy-on-write, readable by any Delta
 *       reader). Skipped when it would change nothing.
 * </ol>
 *
 * <p>So {@code q <= s} only ever lags by the one run in flight, a record is in the sink only
 * through a commit that names it, and it leaves the quarantine only through a commit of the same
 * run. A crash before step 3's commit leaves orphan files only; one after it is completed by the
 * next replay. Neither commit carries or moves the live pipeline's {@code txn}s, and both are blind
 * with respect to its appends (a merge conflicts only with a commit that removes a file it
 * rewrites: then it is planned again on a fresh snapshot).
 */
public final class QuarantineReplay {
  /**
   * The sink commit's {@code commitInfo} key naming the run's records ({@link ReplayedRecords}).
   */
  public static final String RECORDS_KEY = "tributary.replay.records";

  /** The {@code commitInfo} key of the run's number. */
  public static final String RUN_KEY = "tributary.replay.run";

  /** The {@code commitInfo} key of the quarantine table version the run read. */
  public static final String QUARANTINE_VERSION_KEY = "tributary.replay.quarantineVersion";

  /** The quarantine table's key: one row per Kafka record. */
  static final List<String> KEY = List.of("topic", "partition", "offset");

  private static final int SAMPLES = 3;
  private static final int MERGE_ATTEMPTS = 5;

  private final String pipelineId;
  private final TableSink sink;
  private final DeltaTable sinkTable;
  private final DeltaTable quarantine;
  private final RecordProcessor processor;
  private final Clock clock;

  /**
   * @param pipelineId the pipeline
   * @param sink the pipeline's Delta sink, as the live pipeline opens it (row rules, evolution)
   * @param sinkTable the same table, for its log and {@code txn}s
   * @param quarantine the pipeline's quarantine table (which exists)
   * @param processor the pipeline's stateless processor for {@code sink}
   */
  public QuarantineReplay(
      String pipelineId,
      TableSink sink,
      DeltaTable sinkTable,
      DeltaTable quarantine,
      RecordProcessor processor,
      Clock clock) {
    this.pipelineId = pipelineId;
    this.sink = sink;
    this.sinkTable = sinkTable;
    this.quarantine = quarantine;
    this.processor = processor;
    this.clock = clock;
  }

  /** The app id of a pipeline's replay {@code txn}s in its sink and quarantine tables. */
  public static String appId(String pipelineId) {
    // '/' cannot occur in a pipeline id, and the live pipeline's keys are <id>@… and <id>:…
    return pipelineId + "/replay";
  }

  /**
   * Runs the protocol once: completes an interrupted run, then replays the records {@code where}
   * selects.
   *
   * @param where a SQL predicate over the quarantine table's columns, or empty for every row
   * @throws PipelineDefinitionException if {@code where} does not compile (nothing written)
   */
  public ReplayReport replay(Optional<String> where) throws Exception {
    String appId = appId(pipelineId);
    Optional<ReplayReport.Completion> completed = completePending(appId);
    Snapshot read = quarantine.snapshot();
    Columns columns = Columns.of(read.schema(), pipelineId, quarantine.location());
    CompiledPredicate predicate = predicate(where, read.schema());
    Map<RecordKey, Object[]> selected = new TreeMap<>();
    long total = 0;
    for (DataFile f : read.files()) {
      try (RowIterator it =
          DataFiles.read(quarantine.store(), f, read.schema(), read.columnMapping())) {
        while (it.hasNext()) {
          Object[] row = it.next();
          total++;
          RecordKey key = columns.key(row);
          if (key != null && (predicate == null || predicate.test(row))) {
            selected.putIfAbsent(key, row);
          }
        }
      }
    }
    long run = Math.max(held(sinkTable, appId), held(quarantine, appId)) + 1;
    if (selected.isEmpty()) {
      return new ReplayReport(
          completed, 0, read.version(), total, 0, 0, 0, -1, List.of(), -1, false);
    }
    Outcomes outcomes = new Outcomes();
    long sinkVersion = -1;
    try (TableSink.BatchWriter writer =
        sink.begin(new BatchTag(new TransactionId(appId, run), List.of()))) {
      if (writer.alreadyCommitted()) {
        return lostRace(appId, run, completed, read, total, selected.size());
      }
      Map<String, String> extras = processor.planBatch(run);
      Instant startedAt = clock.instant();
      processor.beginBatch(
          new RecordProcessor.BatchContext(
              run, startedAt, OptionalLong.empty(), OptionalLong.empty(), Set.of(), extras));
      for (Map.Entry<RecordKey, Object[]> e : selected.entrySet()) {
        replayOne(e.getKey(), e.getValue(), columns, writer, outcomes);
        CrashPoints.reached(CrashPoints.REPLAY_MID_RUN);
      }
      if (!outcomes.replayed.isEmpty()) {
        Map<String, String> info = new LinkedHashMap<>();
        info.put(RUN_KEY, Long.toString(run));
        info.put(QUARANTINE_VERSION_KEY, Long.toString(read.version()));
        info.put(RECORDS_KEY, ReplayedRecords.encode(outcomes.replayed));
        sinkVersion = writer.commit(info);
        if (sinkVersion < 0) {
          return lostRace(appId, run, completed, read, total, selected.size());
        }
        CrashPoints.reached(CrashPoints.REPLAY_AFTER_SINK_COMMIT);
      }
    }
    Map<RecordKey, Object[]> rewritten = new TreeMap<>();
    outcomes.newErrors.forEach(
        (key, error) -> {
          Object[] row = selected.get(key);
          if (!error.equals(row[columns.error()])) {
            Object[] copy = row.clone();
            copy[columns.error()] = error;
            rewritten.put(key, copy);
          }
        });
    long quarantineCommit =
        markQuarantine(
            appId, run, outcomes.replayed, rewritten.values(), read.schema(), read.version());
    if (quarantineCommit >= 0) {
      CrashPoints.reached(CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT);
    }
    return new ReplayReport(
        completed,
        run,
        read.version(),
        total,
        selected.size(),
        outcomes.replayed.size(),
        outcomes.rowsWritten,
        sinkVersion,
        ReplayReport.failures(outcomes.byError, SAMPLES),
        quarantineCommit,
        false);
  }

  /** Passes one quarantined record through the processor and notes what became of it. */
  private void replayOne(
      RecordKey key, Object[] row, Columns c, TableSink.BatchWriter writer, Outcomes outcomes)
      throws Exception {
    Instant at = (Instant) row[c.timestamp()];
    byte[] k = (byte[]) row[c.recordKey()];
    byte[] v = (byte[]) row[c.value()];
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>(
            key.topic(),
            key.partition(),
            key.offset(),
            at == null ? ConsumerRecord.NO_TIMESTAMP : at.toEpochMilli(),
            TimestampType.CREATE_TIME,
            k == null ? -1 : k.length,
            v == null ? -1 : v.length,
            k,
            v,
            new RecordHeaders(),
            Optional.empty());
    RecordRows rows = new RecordRows(writer);
    CapturedQuarantine failed = new CapturedQuarantine();
    // not closed: its writers are this record's buffers and the run's sink writer
    BatchOutputs outputs = new BatchOutputs(rows, failed, null);
    outputs.countInput();
    outputs.recordTimestamp(record.timestamp());
    processor.process(record, outputs);
    if (failed.error() != null) {
      outcomes.newErrors.put(key, failed.error());
      outcomes.byError.computeIfAbsent(failed.error(), e -> new ArrayList<>()).add(key);
    } else {
      outcomes.rowsWritten += rows.forward();
      outcomes.replayed.add(key);
    }
  }

  /**
   * Completes the run the sink holds and the quarantine does not: deletes the records its sink
   * commit names from the quarantine.
   */
  private Optional<ReplayReport.Completion> completePending(String appId) throws IOException {
    long s = held(sinkTable, appId);
    long q = held(quarantine, appId);
    if (s <= q) {
      return Optional.empty();
    }
    RunCommit commit = findRunCommit(appId, s);
    Snapshot snapshot = quarantine.snapshot();
    long version = markQuarantine(appId, s, commit.records(), List.of(), snapshot.schema(), -1);
    if (version >= 0) {
      CrashPoints.reached(CrashPoints.REPLAY_AFTER_QUARANTINE_COMMIT);
    }
    return Optional.of(
        new ReplayReport.Completion(s, commit.version(), commit.records().size(), version));
  }

  private ReplayReport lostRace(
      String appId,
      long run,
      Optional<ReplayReport.Completion> completed,
      Snapshot read,
      long total,
      long selected)
      throws IOException {
    Optional<ReplayReport.Completion> theirs = completePending(appId);
    return new ReplayReport(
        theirs.or(() -> completed),
        run,
        read.version(),
        total,
        selected,
        0,
        0,
        -1,
        List.of(),
        -1,
        true);
  }

  /**
   * The quarantine commit of run {@code run}: deletes {@code replayed}, rewrites {@code rewritten}
   * (rows with their new error), with {@code txn(appId, run)}; planned again on a fresh snapshot
   * when a concurrent commit removed a file it rewrites.
   *
   * @return the version committed, or -1 when there was nothing to change or the table already held
   *     the run
   */
  private long markQuarantine(
      String appId,
      long run,
      List<RecordKey> replayed,
      java.util.Collection<Object[]> rewritten,
      StructType schema,
      long readVersion)
      throws IOException {
    if (replayed.isEmpty() && rewritten.isEmpty()) {
      return -1;
    }
    int[] key = KEY.stream().mapToInt(schema::indexOf).toArray();
    for (int attempt = 1; ; attempt++) {
      try (MergeTransaction merge = quarantine.newMerge(new TransactionId(appId, run), KEY)) {
        if (merge.alreadyCommitted()) {
          return -1;
        }
        for (RecordKey r : replayed) {
          Object[] row = new Object[schema.size()];
          row[key[0]] = r.topic();
          row[key[1]] = r.partition();
          row[key[2]] = r.offset();
          merge.delete(row);
        }
        rewritten.forEach(merge::write);
        Map<String, String> info = new LinkedHashMap<>();
        info.put(RUN_KEY, Long.toString(run));
        if (readVersion >= 0) {
          info.put(QUARANTINE_VERSION_KEY, Long.toString(readVersion));
        }
        CommitResult result = merge.commit(info);
        return result.committed() ? result.tableVersion() : -1;
      } catch (CommitConflictException e) {
        // a compaction (or another merge) rewrote a file this one rewrites: plan again
        if (attempt >= MERGE_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** The sink commit of run {@code run}, searched from the latest version back. */
  private RunCommit findRunCommit(String appId, long run) throws IOException {
    DeltaLog log = new DeltaLog(sinkTable.store());
    for (long v = sinkTable.snapshot().version(); v >= 0; v--) {
      List<Action> actions;
      try {
        actions = log.readCommit(v);
      } catch (ObjectNotFoundException cleanedUp) {
        break;
      }
      boolean ours = false;
      CommitInfo info = null;
      for (Action a : actions) {
        if (a instanceof SetTransaction t && t.appId().equals(appId) && t.version() == run) {
          ours = true;
        } else if (a instanceof CommitInfo c) {
          info = c;
        }
      }
      if (ours) {
        Object records = info == null ? null : info.values().get(RECORDS_KEY);
        if (!(records instanceof String text)) {
          throw new IllegalStateException(
              ReplayErrors.runCommitUnreadable(pipelineId, sinkTable.location(), run, v));
        }
        return new RunCommit(v, ReplayedRecords.decode(text));
      }
    }
    throw new IllegalStateException(
        ReplayErrors.runCommitGone(pipelineId, sinkTable.location(), run));
  }

  private static long held(DeltaTable table, String appId) throws IOException {
    if (!table.exists()) {
      return 0;
    }
    return table.latestTransactionVersion(appId).orElse(0);
  }

  private CompiledPredicate predicate(Optional<String> where, StructType schema) {
    if (where.isEmpty()) {
      return null;
    }
    try {
      return ExpressionCompiler.compilePredicate(where.get(), schema);
    } catch (ExpressionException e) {
      throw new PipelineDefinitionException(
          pipelineId,
          List.of(
              ReplayErrors.badWhere(pipelineId, where.get(), e.getMessage(), schema.fieldNames())));
    }
  }

  /** A run's sink commit: its version and the records it names. */
  private record RunCommit(long version, List<RecordKey> records) {}

  /** What became of the run's records. */
  private static final class Outcomes {
    final List<RecordKey> replayed = new ArrayList<>();
    final Map<RecordKey, String> newErrors = new TreeMap<>();
    final Map<String, List<RecordKey>> byError = new LinkedHashMap<>();
    long rowsWritten;
  }

  /** Where the quarantine table keeps what a replay reads. */
  record Columns(
      int topic, int partition, int offset, int timestamp, int recordKey, int value, int error) {
    static Columns of(StructType schema, String pipelineId, String location) {
      List<String> missing = new ArrayList<>();
      int[] at = new int[7];
      String[] names = {"topic", "partition", "offset", "kafka_timestamp", "key", "value", "error"};
      for (int i = 0; i < names.length; i++) {
        at[i] = schema.indexOf(names[i]);
        if (at[i] < 0) {
          missing.add(names[i]);
        }
      }
      if (!missing.isEmpty()) {
        throw new IllegalStateException(
            ReplayErrors.notARecordQuarantine(pipelineId, location, missing));
      }
      return new Columns(at[0], at[1], at[2], at[3], at[4], at[5], at[6]);
    }

    /** The row's record, or null for a row without provenance (it cannot be replayed). */
    RecordKey key(Object[] row) {
      if (row[topic] instanceof String t
          && row[partition] instanceof Integer p
          && row[offset] instanceof Long o) {
        return new RecordKey(t, p, o);
      }
      return null;
    }
  }
}
