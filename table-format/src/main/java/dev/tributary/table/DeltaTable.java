package dev.tributary.table;

import dev.tributary.storage.ObjectNotFoundException;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.DeltaLog;
import dev.tributary.table.log.LogFiles;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.log.TableState;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Delta Lake table rooted at an {@link ObjectStore}: create it, read its latest snapshot, append
 * or overwrite with idempotent transactions, compact and vacuum it.
 *
 * <p>Concurrency: any number of {@code DeltaTable} instances, in any processes, may commit to the
 * same table; commits are serialized by put-if-absent on the log file of each version (see {@link
 * Committer} and docs/LOG_FORMAT.md for the conflict rules). One instance is thread-safe.
 *
 * <p>Errors: I/O failures of reads are {@link IOException}s; logical failures are {@link
 * TableException}s ({@link CommitConflictException}: not retryable; {@link CommitFailedException}:
 * retryable, possibly of unknown outcome).
 */
public final class DeltaTable {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTable.class);

  /**
   * A widening that conflicts is judged again on the table as it is now, at once: another writer
   * changed the metadata meanwhile (often the same widening, by another instance of the pipeline).
   */
  private static final RetryPolicy WIDEN_RETRY =
      RetryPolicy.named("delta.widen-columns")
          .withMaxAttempts(3)
          .retryingOn(CommitConflictException.class::isInstance);

  private final DeltaLog log;
  private final TableOptions options;
  private final Counters counters = new Counters();
  private final Committer committer;
  private volatile TableState cached;
  private final Map<List<String>, KeyIndex> keyIndexes = new ConcurrentHashMap<>();

  private DeltaTable(ObjectStore store, TableOptions options) {
    this.log = new DeltaLog(store);
    this.options = options;
    this.committer = new Committer(log, options, counters);
  }

  /** A handle on the table rooted at {@code store} (which need not exist yet). Does no I/O. */
  public static DeltaTable open(ObjectStore store, TableOptions options) {
    return new DeltaTable(store, options);
  }

  /** The store holding the table; the caller owns (and closes) it. */
  public ObjectStore store() {
    return log.store();
  }

  /** The table location, as the store reports it. */
  public String location() {
    return log.location();
  }

  /** The options this handle was opened with. */
  public TableOptions options() {
    return options;
  }

  /** True if the table has at least its first commit. */
  public boolean exists() throws IOException {
    return loadLatest().isPresent();
  }

  /**
   * Creates the table (version 0: protocol reader 1 / writer 2, plus the features the schema or the
   * properties need ({@link ProtocolSupport#createdProtocol}), and metaData), or returns the
   * existing one if it has the same schema and partition columns (idempotent: several writers may
   * race to create it; properties of an existing table are left as they are). A write of version 0
   * whose outcome is unknown is resolved by reading the log, like a lost race.
   *
   * @throws IOException if the store failed and version 0 does not exist
   * @throws TableException if the table exists with another schema or partitioning, or if there is
   *     no table but the folder already holds files (a table owns every file in its folder)
   * @throws IllegalArgumentException if a partition column is unknown or not partitionable
   */
  public Snapshot create(
      StructType schema, List<String> partitionColumns, Map<String, String> properties)
      throws IOException {
    DataFiles.checkPartitionColumns(schema, partitionColumns);
    Optional<TableState> existing = loadLatest();
    if (existing.isEmpty()) {
      existing = refuseForeignFiles();
    }
    if (existing.isEmpty()) {
      long now = options.clock().millis();
      Metadata metadata =
          new Metadata(
              UUID.randomUUID().toString(),
              null,
              null,
              Metadata.Format.parquet(),
              SchemaJson.toJson(schema),
              partitionColumns,
              properties,
              now);
      List<Action> actions =
          List.of(
              new CommitInfo(
                  Map.of("timestamp", now, "operation", "CREATE TABLE", "engineInfo", "Tributary")),
              ProtocolSupport.createdProtocol(schema, properties),
              metadata);
      try {
        if (log.tryCommit(0, actions)) {
          LOG.info("Created Delta table at {}", location());
        }
      } catch (IOException unknown) {
        // State unknown: version 0 may exist, written by this attempt or by another writer. Either
        // way it is judged below by its schema, as after a lost race; absent, the error stands.
        try {
          existing = loadLatest();
        } catch (IOException readFailed) {
          unknown.addSuppressed(readFailed);
          throw unknown;
        }
        if (existing.isEmpty()) {
          throw unknown;
        }
        LOG.info(
            "Creation of Delta table at {} reported {}; version 0 exists, checking its schema",
            location(),
            unknown.toString());
      }
      existing = loadLatest();
      if (existing.isEmpty()) {
        throw TableErrors.notATable(location());
      }
    }
    Snapshot snapshot = new Snapshot(location(), existing.get());
    if (!snapshot.schema().equals(schema)
        || !snapshot.partitionColumns().equals(partitionColumns)) {
      throw new TableException(
          "Cannot create Delta table at "
              + location()
              + ": it already exists"
              + " (version "
              + snapshot.version()
              + ") with schema "
              + snapshot.schema().fieldNames()
              + " partitioned by "
              + snapshot.partitionColumns()
              + ", which differs from the requested"
              + " schema "
              + schema.fieldNames()
              + " partitioned by "
              + partitionColumns
              + ". Write to a new table location, or use the existing table's schema.");
    }
    return snapshot;
  }

  /**
   * Adds nullable columns after the existing ones (Delta's {@code ALTER TABLE ADD COLUMNS}): one
   * commit holding a {@code metaData} action with the wider schema and everything else of the
   * table's metadata unchanged (id, partitioning, properties). Files written before read the new
   * columns as null. A concurrent commit that changes the metadata too makes this one fail as a
   * conflict; retrying it after such a commit, or after an unknown outcome, is safe: a column that
   * is already there with the same type is not added twice.
   *
   * @return the snapshot after the change
   * @throws IllegalArgumentException if a column is not nullable, or exists with another type
   */
  public Snapshot addColumns(List<StructField> columns) throws IOException {
    Snapshot current = snapshot();
    List<StructField> fields = new ArrayList<>(current.schema().fields());
    List<StructField> added = new ArrayList<>();
    boolean changed = false;
    for (StructField c : columns) {
      if (!c.nullable()) {
        throw new IllegalArgumentException(
            "Cannot add column '"
                + c.name()
                + "' to the Delta table at "
                + location()
                + ": an added column must be nullable (the files written before hold no value for it)");
      }
      int existing = current.schema().indexOf(c.name());
      if (existing >= 0) {
        if (!current.schema().fields().get(existing).equals(c)) {
          throw new IllegalArgumentException(
              "Cannot add column '"
                  + c.name()
                  + "' to the Delta table at "
                  + location()
                  + ": it already has a column of that name with type "
                  + current.schema().fields().get(existing).type().deltaName());
        }
        continue;
      }
      added.add(c);
      changed = true;
    }
    if (!changed) {
      return current;
    }
    // under column mapping each new column gets a physical name and an id
    ColumnMappingMode.Assigned assigned =
        current.columnMapping().assign(added, TableTransaction.maxColumnId(current));
    fields.addAll(assigned.columns());
    Metadata old = current.state().metadata();
    Metadata wider =
        new Metadata(
            old.id(),
            old.name(),
            old.description(),
            old.format(),
            SchemaJson.toJson(new StructType(fields)),
            old.partitionColumns(),
            current.columnMapping() == ColumnMappingMode.NONE
                ? old.configuration()
                : TableTransaction.withProperty(
                    old.configuration(),
                    ColumnMappingMode.MAX_COLUMN_ID,
                    Long.toString(assigned.maxColumnId())),
            old.createdTime());
    commit(current.state(), null, List.of(wider), "ADD COLUMNS", Map.of(), false);
    LOG.info(
        "Added columns {} to Delta table at {}",
        columns.stream().map(StructField::name).toList(),
        location());
    return snapshot();
  }

  /**
   * Widens top-level columns to the given types (Delta's type widening, {@code ALTER TABLE ALTER
   * COLUMN ... TYPE}): one commit holding a {@code protocol} action that supports the reader-writer
   * feature {@code typeWidening} (reader 3 / writer 7) and a {@code metaData} action with the wide
   * types, each change appended to the column's {@code delta.typeChanges}, and the table property
   * {@code delta.enableTypeWidening=true}; everything else of the metadata is unchanged. Data files
   * are not rewritten: readers convert their narrower values on read. Retrying after a crash, an
   * unknown outcome or a concurrent widening is safe: a column that already has the wide type is
   * left as it is, and nothing is committed when every column already has it.
   *
   * @param types the wide type of each column to widen, by name
   * @return the snapshot after the change
   * @throws IllegalArgumentException if a column is unknown, or the change is not a widening that
   *     Delta allows ({@link TypeWidening#allowed})
   */
  public Snapshot widenColumns(Map<String, DataType> types) throws IOException {
    return WIDEN_RETRY.call(attempt -> widenOnce(types));
  }

  private Snapshot widenOnce(Map<String, DataType> types) throws IOException {
    Snapshot current = snapshot();
    List<StructField> fields = new ArrayList<>(current.schema().fields());
    List<String> widened = new ArrayList<>();
    for (var e : new TreeMap<>(types).entrySet()) {
      int i = current.schema().indexOf(e.getKey());
      if (i < 0) {
        throw new IllegalArgumentException(
            "Cannot widen column '"
                + e.getKey()
                + "' of the Delta table at "
                + location()
                + ": it has no such column");
      }
      StructField field = fields.get(i);
      if (field.type().equals(e.getValue())) {
        continue;
      }
      if (!TypeWidening.allowed(field.type(), e.getValue())) {
        throw new IllegalArgumentException(
            "Cannot change column '"
                + e.getKey()
                + "' of the Delta table at "
                + location()
                + " from "
                + field.type().deltaName()
                + " to "
                + e.getValue().deltaName()
                + ": Delta's type widening allows only integer to long, double or decimal, long to decimal,"
                + " and decimal to a decimal with at least as many integral and fractional digits");
      }
      if (current.partitionColumns().contains(e.getKey())) {
        throw new IllegalArgumentException(
            "Cannot widen column '"
                + e.getKey()
                + "' of the Delta table at "
                + location()
                + ": it is a partition column");
      }
      fields.set(i, field.widenedTo(e.getValue()));
      widened.add(e.getKey() + " " + field.type().deltaName() + " -> " + e.getValue().deltaName());
    }
    if (widened.isEmpty()) {
      return current;
    }
    Metadata old = current.state().metadata();
    Map<String, String> configuration = new LinkedHashMap<>(old.configuration());
    configuration.put(TypeWidening.ENABLE_PROPERTY, "true");
    Metadata wider =
        new Metadata(
            old.id(),
            old.name(),
            old.description(),
            old.format(),
            SchemaJson.toJson(new StructType(fields)),
            old.partitionColumns(),
            configuration,
            old.createdTime());
    Protocol protocol = current.state().protocol().withReaderWriterFeature(TypeWidening.FEATURE);
    commit(current.state(), null, List.of(protocol, wider), "CHANGE COLUMN", Map.of(), false);
    LOG.info(
        "Widened columns {} of Delta table at {} (table feature typeWidening)",
        widened,
        location());
    return snapshot();
  }

  /**
   * Refuses to create a table over files it does not own: a table's vacuum deletes every file in
   * its folder that no snapshot references, so a folder that holds objects but no commit (another
   * tool's data, a checkpoint, a table nested in it) must not become a table. The listing is
   * bounded, so the check costs one request however full the folder is. A crash cannot make a table
   * refuse itself: nothing is written to the folder before commit 0, which is one atomic
   * put-if-absent. Files found may also belong to a writer that created the table since we read the
   * log (and then wrote data); the log is read again before refusing.
   *
   * @return the table another writer created meanwhile, or empty if the folder holds no object
   */
  private Optional<TableState> refuseForeignFiles() throws IOException {
    List<String> found = new ArrayList<>();
    for (var object : log.store().sample("", TableErrors.FILES_SHOWN + 1)) {
      if (!object.key().startsWith(LogFiles.LOG_DIR)) {
        found.add(object.key());
      }
    }
    if (found.isEmpty()) {
      return Optional.empty();
    }
    Optional<TableState> created = loadLatest();
    if (created.isPresent()) {
      return created;
    }
    throw TableErrors.folderNotEmpty(location(), found);
  }

  /**
   * The latest snapshot: the cached one brought up to date by reading only the commits after it.
   *
   * @throws TableException if the table does not exist or its log is unreadable
   */
  public Snapshot snapshot() throws IOException {
    return new Snapshot(location(), latestState());
  }

  /** The latest snapshot, or empty if there is no table (any more): one listing of the log. */
  public Optional<Snapshot> snapshotIfExists() throws IOException {
    return loadLatest().map(state -> new Snapshot(location(), state));
  }

  /**
   * The snapshot at {@code version} exactly: the cached state when it is that version, else the log
   * replayed up to it ({@link DeltaLog#loadAt}).
   *
   * @throws TableException if the version is not committed or can no longer be rebuilt from the log
   */
  public Snapshot snapshotAt(long version) throws IOException {
    TableState current = cached;
    if (current != null && current.version() == version) {
      return new Snapshot(location(), current);
    }
    return new Snapshot(location(), log.loadAt(version));
  }

  /**
   * The commits after {@code afterVersion} that took the table's data out wholesale ({@link
   * HistoryRewrite}: a restore, a full overwrite, a replace, a truncate), oldest first, up to
   * {@code upToVersion} (a version the caller's snapshot has, so no listing is needed). A commit
   * carrying a {@code txn} of one of {@code ownAppIds} is the caller's own and is not reported; a
   * commit the log no longer holds (cleaned up) is skipped. Reads one file per commit.
   */
  public List<HistoryRewrite> rewritesAfter(
      long afterVersion, long upToVersion, Set<String> ownAppIds) throws IOException {
    List<HistoryRewrite> out = new ArrayList<>();
    for (long v = Math.max(0, afterVersion + 1); v <= upToVersion; v++) {
      List<Action> actions;
      try {
        actions = log.readCommit(v);
      } catch (ObjectNotFoundException cleanedUp) {
        continue;
      }
      boolean own = false;
      CommitInfo info = null;
      for (Action a : actions) {
        if (a instanceof SetTransaction t && ownAppIds.contains(t.appId())) {
          own = true;
        } else if (a instanceof CommitInfo c) {
          info = c;
        }
      }
      if (own || info == null || !(info.values().get("operation") instanceof String operation)) {
        continue;
      }
      Map<String, String> parameters = new LinkedHashMap<>();
      if (info.values().get("operationParameters") instanceof Map<?, ?> given) {
        given.forEach((k, val) -> parameters.put(String.valueOf(k), String.valueOf(val)));
      }
      if (HistoryRewrite.rewrites(operation, parameters)) {
        out.add(new HistoryRewrite(v, operation, parameters));
      }
    }
    return out;
  }

  /**
   * Checks that Tributary may append to the table as it is now: its protocol and the features it
   * uses are ones we honour when we commit (docs/PROTOCOL_SUPPORT.md). A sink calls it when it
   * opens the table, so an unsupported feature is refused at start, by name, never at commit.
   *
   * @throws TableException naming the table, the protocol and each feature we lack
   */
  public void checkAppendable() throws IOException {
    checkAppendable(Set.of());
  }

  /**
   * {@link #checkAppendable()} for a writer that enforces the row rules in {@code enforced} (of
   * {@link ProtocolSupport#ROW_RULE_FEATURES}: it evaluates the table's {@link TableRules} on every
   * row and declares them on its transactions with {@link AppendTransaction#enforce}).
   */
  public void checkAppendable(Set<String> enforced) throws IOException {
    TableState state = latestState();
    ProtocolSupport.checkWritable(
        location(), state.version(), state.protocol(), state.metadata(), enforced);
  }

  /** The latest version {@code appId} committed, or empty if it never did. */
  public OptionalLong latestTransactionVersion(String appId) throws IOException {
    return latestState().transactionVersion(appId);
  }

  /**
   * Starts an append of transaction {@code txn}. If the table already holds {@code txn.appId()} at
   * a version >= {@code txn.version()}, the transaction is {@link
   * TableTransaction#alreadyCommitted() already committed}: rows written to it are dropped and its
   * commit is a skip.
   */
  public AppendTransaction newAppend(TransactionId txn) throws IOException {
    return new AppendTransaction(this, txn, new Snapshot(location(), latestState()));
  }

  /**
   * Starts a fenced append: a blind append whose commit moves each fence's position (a {@code txn}
   * action) from {@link PositionFence#expected} to {@link PositionFence#next}, and is valid only if
   * the table holds exactly the expected versions in the snapshot it commits on top of. Concurrent
   * appends that touch none of the positions are retried over as usual; one that records any of
   * them, or a table already past an expected version, fails the commit with a {@link
   * PositionConflictException} (not retried). This is the fence of writers that share a table by
   * source partition (Tributary's consumer-group mode, docs/DESIGN.md "Scale-out"): a writer that
   * lost a partition can never commit a range its new owner has committed, and of two writers
   * planning the same range only one commits it.
   *
   * @param fences at least one, with distinct app ids
   * @throws IllegalArgumentException if there is no fence or two share an app id
   */
  public AppendTransaction newFencedAppend(List<PositionFence> fences) throws IOException {
    if (fences.isEmpty()) {
      throw new IllegalArgumentException("a fenced append needs at least one position");
    }
    if (fences.stream().map(PositionFence::appId).distinct().count() != fences.size()) {
      throw new IllegalArgumentException("two fences share an app id: " + fences);
    }
    return new AppendTransaction(this, fences, new Snapshot(location(), latestState()));
  }

  /**
   * Starts a transaction that replaces the whole table content (every live file is removed, the new
   * files are added, in one commit). Same idempotency as {@link #newAppend}.
   */
  public OverwriteTransaction newOverwrite(TransactionId txn) throws IOException {
    return new OverwriteTransaction(this, txn, new Snapshot(location(), latestState()));
  }

  /**
   * Starts a transaction that replaces the rows of {@code range} in one commit (Delta's {@code
   * replaceWhere}; see {@link ReplaceRangeTransaction}). Same idempotency as {@link #newAppend}.
   *
   * @throws TableException if the table is append-only or tracks row ids
   */
  public ReplaceRangeTransaction newReplaceRange(
      TransactionId txn, ReplaceRangeTransaction.Range range) throws IOException {
    return new ReplaceRangeTransaction(this, txn, new Snapshot(location(), latestState()), range);
  }

  /**
   * Starts a transaction that upserts rows by the values of {@code keyColumns}: the table keeps one
   * row per key, the last one written (update output mode). Same idempotency as {@link #newAppend}.
   *
   * @throws IllegalArgumentException if a key column is not a column of the table
   */
  public MergeTransaction newMerge(TransactionId txn, List<String> keyColumns) throws IOException {
    return newMerge(txn, MergeSpec.byKey(keyColumns));
  }

  /**
   * Starts a transaction that merges changes (upserts and deletes) by key, ordered by the spec's
   * sequence column if it has one ({@code write: upsert}). Same idempotency as {@link #newAppend}.
   * The handle keeps a {@link KeyIndex} per spec, so a merge reads only the key columns of the
   * files committed since the handle's previous merge (the whole table's, the first time).
   *
   * @throws IllegalArgumentException if a key or sequence column is not a column of the table
   */
  public MergeTransaction newMerge(TransactionId txn, MergeSpec spec) throws IOException {
    return new MergeTransaction(this, txn, new Snapshot(location(), latestState()), spec);
  }

  /**
   * Starts a transaction that merges changes by key into a table keeping every version of a key
   * ({@code history: scd2}; see {@link HistoryMergeTransaction}). Same idempotency as {@link
   * #newAppend}. The table must have the {@link HistoryMergeTransaction#HISTORY_COLUMNS}.
   *
   * @throws IllegalArgumentException if a key or history column is not a column of the table
   */
  public HistoryMergeTransaction newHistoryMerge(TransactionId txn, MergeSpec spec)
      throws IOException {
    return new HistoryMergeTransaction(this, txn, new Snapshot(location(), latestState()), spec);
  }

  /** The key index of merges by {@code spec}'s columns, created empty on first use. */
  KeyIndex keyIndex(MergeSpec spec) {
    List<String> id = new ArrayList<>(spec.keyColumns());
    id.add("|" + spec.sequenceColumn().orElse(""));
    return keyIndexes.computeIfAbsent(
        id, k -> new KeyIndex(spec.keyColumns(), spec.sequenceColumn().orElse(null)));
  }

  /**
   * Rewrites small files of each partition into files of the target size; see {@link Compactor}.
   */
  public CompactionResult compact(CompactionOptions compaction) throws IOException {
    return new Compactor(this).compact(compaction);
  }

  /**
   * Lists what {@link #vacuum(Duration)} would delete, deleting nothing.
   *
   * @param retention files unreferenced for longer than this are deleted
   */
  public VacuumResult vacuumDryRun(Duration retention) throws IOException {
    return new Vacuum(this, retention).run(false);
  }

  /**
   * Deletes data files the current snapshot does not reference and whose removal (for tombstones)
   * or last modification (for files no commit ever referenced) is older than {@code retention}.
   * Never deletes a live file and never touches {@code _delta_log/}.
   */
  public VacuumResult vacuum(Duration retention) throws IOException {
    return new Vacuum(this, retention).run(true);
  }

  /** Counters of this handle's commits, for metrics. */
  public CommitCounters counters() {
    return counters.snapshot();
  }

  TableState latestState() throws IOException {
    return loadLatest().orElseThrow(() -> TableErrors.notATable(location()));
  }

  private Optional<TableState> loadLatest() throws IOException {
    TableState current = cached;
    Optional<TableState> latest = current == null ? log.load() : log.refresh(current);
    if (current != null && !latest.map(l -> sameLog(current, l)).orElse(false)) {
      // deleted, or another log in the folder: never answer from the state of a table that is gone
      replaceCache(current, latest.orElse(null));
    } else {
      latest.ifPresent(this::remember);
    }
    return latest;
  }

  /** Whether {@code later} continues the log of {@code earlier} (same table, not older). */
  private static boolean sameLog(TableState earlier, TableState later) {
    return later.version() >= earlier.version()
        && later.metadata().id().equals(earlier.metadata().id());
  }

  private synchronized void replaceCache(TableState expected, TableState replacement) {
    if (cached == expected) {
      cached = replacement;
    }
  }

  private synchronized void remember(TableState state) {
    if (state != null && (cached == null || state.version() > cached.version())) {
      cached = state;
    }
  }

  /** Commits file actions on top of {@code readState}; checkpoints if the version calls for it. */
  CommitResult commit(
      TableState readState,
      TransactionId txn,
      List<Action> fileActions,
      String operation,
      Map<String, ?> extras,
      boolean appendsConflict) {
    return commit(readState, txn, List.of(), fileActions, operation, extras, appendsConflict);
  }

  CommitResult commit(
      TableState readState,
      TransactionId txn,
      List<PositionFence> fences,
      List<Action> fileActions,
      String operation,
      Map<String, ?> extras,
      boolean appendsConflict) {
    return commit(
        readState, txn, fences, fileActions, operation, extras, appendsConflict, Set.of());
  }

  /** A commit by a writer that enforces the row rules in {@code enforced} on the rows it adds. */
  CommitResult commit(
      TableState readState,
      TransactionId txn,
      List<PositionFence> fences,
      List<Action> fileActions,
      String operation,
      Map<String, ?> extras,
      boolean appendsConflict,
      Set<String> enforced) {
    return commit(
        readState,
        txn,
        fences,
        fileActions,
        operation,
        extras,
        ConflictRules.AddRule.of(appendsConflict),
        enforced);
  }

  /** A commit with which concurrently added data conflicts given by {@code adds}. */
  CommitResult commit(
      TableState readState,
      TransactionId txn,
      List<PositionFence> fences,
      List<Action> fileActions,
      String operation,
      Map<String, ?> extras,
      ConflictRules.AddRule adds,
      Set<String> enforced) {
    Committer.Outcome outcome =
        committer.commit(readState, txn, fences, fileActions, operation, extras, adds, enforced);
    remember(outcome.state());
    CommitResult result = outcome.result();
    if (result.committed()
        && result.tableVersion() % options.logCheckpointInterval() == 0
        && result.tableVersion() > 0
        && outcome.state().version() == result.tableVersion()) {
      checkpoint(outcome.state());
    }
    return result;
  }

  private void checkpoint(TableState state) {
    try {
      log.writeCheckpoint(state, options.clock().millis());
      counters.checkpoints.increment();
    } catch (IOException | RuntimeException e) {
      // The commit is durable without it; the next interval writes a newer checkpoint.
      counters.checkpointFailures.increment();
      LOG.warn(
          "Checkpoint {} of Delta table at {} failed; the commit stands: {}",
          LogFiles.checkpoint(state.version()),
          location(),
          e.toString());
    }
  }
}
