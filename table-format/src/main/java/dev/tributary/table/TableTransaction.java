package dev.tributary.table;

import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.PartitionedDataWriter;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.log.StatsJson;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * One idempotent write to a table: rows or finished data files, committed once.
 *
 * <p>Lifecycle: {@link #write} rows and/or {@link #addFiles} files, then {@link #commit} once (or
 * {@link #abort}/{@link #close} to give up). Not thread-safe.
 *
 * <p>Idempotency (docs/DESIGN.md, "Exactly once: the replay guard"): the one guard is the
 * committer's, which skips a commit whose {@code txn} the table already holds at this or a later
 * version, checked on the state each attempt commits on top of (and on every commit that won a race
 * against it). {@link #alreadyCommitted()} is the same fact read from the read snapshot, answered
 * early so that a replay does no work: rows written are dropped, a merge plans nothing, and the
 * caller can test it first and not produce the rows at all. It decides nothing at commit: the
 * commit of a transaction that is already held goes to the committer like any other and is skipped
 * there.
 *
 * <p>Data files written and then not committed (abort, conflict, skip after a lost race) are left
 * as orphans for vacuum: they are never referenced, and deleting them is vacuum's job.
 */
public abstract sealed class TableTransaction implements AutoCloseable
    permits AppendTransaction,
        OverwriteTransaction,
        MergeTransaction,
        HistoryMergeTransaction,
        ReplaceRangeTransaction {
  final DeltaTable table;
  final TransactionId txn;
  final Snapshot readSnapshot;
  private final boolean alreadyCommitted;
  private final List<DataFile> files = new ArrayList<>();
  private final List<TransactionId> alsoRecorded = new ArrayList<>();
  private final List<PositionFence> fences;
  private PartitionedDataWriter writer;

  /** The schema this commit gives the table ({@link #addColumns}), or null: unchanged. */
  private StructType newSchema;

  /** The column mapping's largest id after {@link #addColumns}, or -1: unchanged. */
  private long newMaxColumnId = -1;

  /** The protocol this commit gives the table ({@link #changeTable}), or null: unchanged. */
  private Protocol newProtocol;

  /** Table properties this commit sets ({@link #changeTable}). */
  private final Map<String, String> newProperties = new LinkedHashMap<>();

  private boolean done;

  /** The row rules the caller enforced on the rows ({@link AppendTransaction#enforce}), or null. */
  TableRules enforced;

  /** Identity high-water marks this commit moves ({@link AppendTransaction#moveIdentity}). */
  final List<AppendTransaction.IdentityMark> identityMarks = new ArrayList<>();

  TableTransaction(DeltaTable table, TransactionId txn, Snapshot readSnapshot) {
    this.table = table;
    this.txn = Objects.requireNonNull(txn, "txn");
    this.readSnapshot = readSnapshot;
    this.fences = List.of();
    OptionalLong held = readSnapshot.latestTransactionVersion(txn.appId());
    this.alreadyCommitted = held.isPresent() && held.getAsLong() >= txn.version();
  }

  /**
   * A fenced transaction ({@link DeltaTable#newFencedAppend}): no idempotency key of its own; the
   * fences' positions decide whether it may commit.
   */
  TableTransaction(DeltaTable table, List<PositionFence> fences, Snapshot readSnapshot) {
    this.table = table;
    this.txn = null;
    this.readSnapshot = readSnapshot;
    this.fences = List.copyOf(fences);
    this.alreadyCommitted = false;
  }

  /** The transaction id; null for a fenced transaction, which is identified by its fences. */
  public TransactionId id() {
    return txn;
  }

  /** The positions a fenced transaction moves; empty for a transaction with an id. */
  public List<PositionFence> fences() {
    return fences;
  }

  /** The snapshot this transaction reads and builds on. */
  public Snapshot readSnapshot() {
    return readSnapshot;
  }

  /**
   * True if the table held this transaction in the read snapshot: rows written are dropped, and the
   * commit will be a skip (the committer's, which finds the same {@code txn}). An early answer that
   * saves the work, not the guard against a second copy.
   */
  public boolean alreadyCommitted() {
    return alreadyCommitted;
  }

  /**
   * Writes one row (aligned with the table schema, partition columns included) into the
   * transaction's data files. Dropped if {@link #alreadyCommitted()}.
   *
   * @throws IllegalArgumentException if the row does not fit the schema
   */
  public void write(Object[] row) throws IOException {
    checkOpen();
    if (alreadyCommitted) {
      return;
    }
    if (writer == null) {
      // Under column mapping the files, partition values and statistics use the physical names
      // (and the files carry the column ids); the rows are positional, so nothing else changes.
      writer =
          DataFiles.newWriter(
              table.store(),
              readSnapshot
                  .columnMapping()
                  .physicalSchema(newSchema != null ? newSchema : readSnapshot.schema()),
              readSnapshot.physicalPartitionColumns(),
              table.options().dataWriteOptions());
    }
    writer.write(row);
  }

  /**
   * Adds data files written elsewhere (already complete in the table's store).
   *
   * @throws IllegalArgumentException if a file's partition values do not match the table's
   *     partition columns
   */
  public void addFiles(List<DataFile> newFiles) {
    checkOpen();
    var expected = new HashSet<>(readSnapshot.physicalPartitionColumns());
    for (DataFile f : newFiles) {
      if (!f.partitionValues().keySet().equals(expected)) {
        throw new IllegalArgumentException(
            "data file '"
                + f.path()
                + "' has partition values for "
                + f.partitionValues().keySet()
                + " but table "
                + table.location()
                + " is partitioned by "
                + readSnapshot.partitionColumns());
      }
    }
    files.addAll(newFiles);
  }

  /**
   * Records more {@code txn} actions in the same commit as the data, such as the source offset each
   * input partition has reached: the table itself then says how far its data goes, atomically with
   * the data. They are facts for readers, not idempotency keys: only {@link #id()} decides whether
   * this transaction is already committed. An app id equal to {@link #id()}'s is refused.
   */
  public void alsoRecord(List<TransactionId> transactions) {
    checkOpen();
    for (TransactionId t : transactions) {
      if (txn != null && t.appId().equals(txn.appId())
          || fences.stream().anyMatch(f -> f.appId().equals(t.appId()))) {
        throw new IllegalArgumentException(
            "txn " + t.appId() + " is this transaction's own id or fence");
      }
    }
    alsoRecorded.addAll(transactions);
  }

  /**
   * Makes this commit also add {@code columns} (nullable, after the existing ones) to the table's
   * schema: the commit then carries a {@code metaData} action with the whole wider schema and
   * everything else of the metadata unchanged, so the data files of the same commit may hold the
   * new columns (Delta's schema evolution on write: files written before, including earlier files
   * of this commit, read them as null). A concurrent commit that changes the metadata makes this
   * one fail as a conflict; a column already in the read snapshot with the same type is not added
   * twice. Call before {@link #write}.
   *
   * @throws IllegalArgumentException if a column is not nullable or exists with another type
   */
  public void addColumns(List<StructField> columns) {
    checkOpen();
    StructType current = newSchema != null ? newSchema : readSnapshot.schema();
    List<StructField> fields = new ArrayList<>(current.fields());
    List<StructField> added = new ArrayList<>();
    for (StructField c : columns) {
      if (!c.nullable()) {
        throw new IllegalArgumentException(
            "Cannot add column '"
                + c.name()
                + "' to the Delta table at "
                + table.location()
                + ": an added column must be nullable (the files written before hold no value for it)");
      }
      if (ProtocolSupport.needsTimestampNtz(c.type())
          && !readSnapshot.state().protocol().supports(ProtocolSupport.TIMESTAMP_NTZ)) {
        throw new IllegalArgumentException(
            "Cannot add column '"
                + c.name()
                + "' to the Delta table at "
                + table.location()
                + ": it is a timestamp_ntz, which needs the table feature timestampNtz the table"
                + " does not support; declare it as a timestamp, or enable the feature"
                + " (ALTER TABLE ... SET TBLPROPERTIES ('delta.feature.timestampNtz' = 'supported'))");
      }
      int existing = current.indexOf(c.name());
      if (existing >= 0) {
        if (!current.fields().get(existing).equals(c)) {
          throw new IllegalArgumentException(
              "Cannot add column '"
                  + c.name()
                  + "' to the Delta table at "
                  + table.location()
                  + ": it already has a column of that name with type "
                  + current.fields().get(existing).type().deltaName());
        }
        continue;
      }
      added.add(c);
    }
    ColumnMappingMode mode = readSnapshot.columnMapping();
    long max = newMaxColumnId >= 0 ? newMaxColumnId : maxColumnId(readSnapshot);
    ColumnMappingMode.Assigned assigned = mode.assign(added, max);
    fields.addAll(assigned.columns());
    if (mode != ColumnMappingMode.NONE && !added.isEmpty()) {
      newMaxColumnId = assigned.maxColumnId();
    }
    if (fields.size() > current.size()) {
      newSchema = new StructType(fields);
    }
  }

  /**
   * Makes this commit also move the table to {@code protocol} (null: unchanged) and set {@code
   * properties}, everything else of the metadata unchanged: how a merge turns on a table feature it
   * is about to use. A concurrent commit that changes the protocol or metadata too makes this one a
   * conflict.
   */
  void changeTable(Protocol protocol, Map<String, String> properties) {
    checkOpen();
    newProtocol = protocol;
    newProperties.putAll(properties);
  }

  /**
   * Finishes the data files and commits them with this transaction's {@code txn} action.
   *
   * @param commitInfoExtras extra fields of the commit's {@code commitInfo} (e.g. offsets)
   * @throws CommitConflictException if a concurrent commit conflicts (nothing committed); a {@link
   *     PositionConflictException} if a fence's position is not (or no longer) the expected one
   * @throws CommitFailedException if retries ran out (see {@link
   *     CommitFailedException#stateUnknown()})
   */
  public CommitResult commit(Map<String, String> commitInfoExtras) throws IOException {
    checkOpen();
    done = true;
    // No skip here even when alreadyCommitted: the committer is the one place that decides it (on
    // every attempt, so a commit that another writer made after the read snapshot is found too).
    // Such a transaction has written no rows and planned nothing, so little is built to be dropped.
    if (writer != null) {
      try {
        files.addAll(writer.finish());
      } catch (IOException | RuntimeException e) {
        abortWriter();
        throw e;
      }
    }
    if (!alreadyCommitted) {
      // Rows the committer will skip need no rules: another writer's commit of this very
      // transaction may well have moved an identity mark since the rows were numbered.
      checkRules();
    }
    long now = table.options().clock().millis();
    List<Action> actions = new ArrayList<>();
    StructType statsSchema = readSnapshot.columnMapping().physicalSchema(readSnapshot.dataSchema());
    if (newProtocol != null) {
      actions.add(newProtocol);
    }
    boolean schemaChanges = newSchema != null || !identityMarks.isEmpty();
    if (schemaChanges || !newProperties.isEmpty()) {
      Metadata old = readSnapshot.state().metadata();
      Map<String, String> configuration =
          newMaxColumnId < 0
              ? old.configuration()
              : withProperty(
                  old.configuration(),
                  ColumnMappingMode.MAX_COLUMN_ID,
                  Long.toString(newMaxColumnId));
      if (!newProperties.isEmpty()) {
        configuration = new LinkedHashMap<>(configuration);
        configuration.putAll(newProperties);
      }
      StructType committed =
          schemaChanges
              ? withIdentityMarks(
                  newSchema != null ? newSchema : readSnapshot.schema(), identityMarks)
              : null;
      actions.add(
          new Metadata(
              old.id(),
              old.name(),
              old.description(),
              old.format(),
              schemaChanges ? SchemaJson.toJson(committed) : old.schemaString(),
              old.partitionColumns(),
              configuration,
              old.createdTime()));
      if (schemaChanges) {
        List<StructField> data = new ArrayList<>();
        for (StructField f : committed.fields()) {
          if (!readSnapshot.partitionColumns().contains(f.name())) {
            data.add(f);
          }
        }
        statsSchema = readSnapshot.columnMapping().physicalSchema(new StructType(data));
      }
    }
    actions.addAll(removals(now));
    for (TransactionId t : alsoRecorded) {
      actions.add(new SetTransaction(t.appId(), t.version(), now));
    }
    for (PositionFence f : fences) {
      actions.add(new SetTransaction(f.appId(), f.next(), now));
    }
    for (DataFile f : files) {
      actions.add(
          new AddFile(
              f.path(),
              f.partitionValues(),
              f.size(),
              f.modificationTime(),
              true /* dataChange */,
              StatsJson.toJson(f.stats(), statsSchema),
              Map.of()));
    }
    Map<String, Object> info = new LinkedHashMap<>(commitInfoExtras);
    info.putAll(operationInfo(files));
    return table.commit(
        readSnapshot.state(),
        txn,
        fences,
        actions,
        operation(),
        info,
        addRule(),
        enforced == null ? Set.of() : ProtocolSupport.ROW_RULE_FEATURES);
  }

  /**
   * Before a commit that enforced rules: the table must still declare the rules the rows were
   * checked against, and every identity column it moves must still have the high-water mark its
   * values were assigned after. A change between the batch's start and this transaction's read
   * snapshot is caught here; one after the read snapshot is a metaData action in a concurrent
   * commit, which {@link ConflictRules} refuses.
   */
  private void checkRules() {
    if (enforced == null && identityMarks.isEmpty()) {
      return;
    }
    TableRules now = TableRules.of(readSnapshot);
    if (enforced != null && !enforced.sameRulesAs(now)) {
      abortWriter();
      throw TableErrors.rulesChanged(table.location(), readSnapshot.version());
    }
    for (AppendTransaction.IdentityMark mark : identityMarks) {
      TableRules.Identity identity = now.identity(mark.column());
      if (identity == null || !Objects.equals(identity.highWaterMark(), mark.previous())) {
        abortWriter();
        throw TableErrors.identityMarkMoved(
            table.location(), mark, identity == null ? null : identity.highWaterMark());
      }
    }
  }

  /** {@code schema} with each marked identity column's high-water mark moved. */
  static StructType withIdentityMarks(
      StructType schema, List<AppendTransaction.IdentityMark> marks) {
    if (marks.isEmpty()) {
      return schema;
    }
    List<StructField> fields = new ArrayList<>();
    for (StructField f : schema.fields()) {
      StructField out = f;
      for (AppendTransaction.IdentityMark m : marks) {
        if (m.column().equals(f.name())) {
          out = out.withMetadata(TableRules.IDENTITY_HIGH_WATER_MARK, m.highWaterMark());
        }
      }
      fields.add(out);
    }
    return new StructType(fields);
  }

  /** Gives up: open data files are discarded, published ones stay as orphans for vacuum. */
  public void abort() {
    done = true;
    abortWriter();
  }

  /** {@link #abort()} unless committed. */
  @Override
  public void close() {
    if (!done) {
      abort();
    }
  }

  /** The table's {@code delta.columnMapping.maxColumnId}, or the largest id in its schema. */
  static long maxColumnId(Snapshot snapshot) {
    String declared = snapshot.properties().get(ColumnMappingMode.MAX_COLUMN_ID);
    long max = declared == null ? 0 : Long.parseLong(declared);
    return Math.max(max, largestId(snapshot.schema()));
  }

  private static long largestId(StructType schema) {
    long max = 0;
    for (StructField f : schema.fields()) {
      if (f.columnId() != null) {
        max = Math.max(max, f.columnId());
      }
      if (f.type() instanceof StructType nested) {
        max = Math.max(max, largestId(nested));
      }
    }
    return max;
  }

  static Map<String, String> withProperty(
      Map<String, String> properties, String key, String value) {
    Map<String, String> out = new LinkedHashMap<>(properties);
    out.put(key, value);
    return out;
  }

  abstract List<Action> removals(long now);

  /**
   * What the commit's {@code commitInfo} records about the operation beyond the caller's extras
   * (Delta's {@code operationParameters}, {@code operationMetrics}), given the files it adds.
   */
  Map<String, Object> operationInfo(List<DataFile> added) {
    return Map.of();
  }

  abstract String operation();

  abstract boolean overwritesAll();

  /** Which data a concurrent commit may not add; by default, any when overwriting everything. */
  ConflictRules.AddRule addRule() {
    return ConflictRules.AddRule.of(overwritesAll());
  }

  private void abortWriter() {
    if (writer != null) {
      writer.abort();
    }
  }

  private String describe() {
    return txn != null ? txn.appId() + "/" + txn.version() : "fenced by " + fences;
  }

  private void checkOpen() {
    if (done) {
      throw new IllegalStateException(
          "transaction "
              + describe()
              + " on "
              + table.location()
              + " was already committed or aborted");
    }
  }
}
