package dev.tributary.service.engine;

import dev.tributary.storage.ObjectStore;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.CommitCounters;
import dev.tributary.table.CommitResult;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.OverwriteTransaction;
import dev.tributary.table.PositionConflictException;
import dev.tributary.table.PositionFence;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableRules;
import dev.tributary.table.TableTransaction;
import dev.tributary.table.TypeWidening;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.data.DictionaryMemory;
import dev.tributary.table.data.PartitionedDataWriter;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Delta table as a batch sink. Rows stream into Parquet files as they arrive; the batch's files
 * are committed in one Delta commit carrying the batch's {@link BatchTag}, so a replayed batch is
 * skipped when the table already holds it. The commit appends, merges by key or overwrites ({@link
 * Write}), as the pipeline's output mode needs.
 */
public final class DeltaTableSink implements TableSink {
  private static final Logger LOG = LoggerFactory.getLogger(DeltaTableSink.class);
  private final ObjectStore store;
  private final DeltaTable table;
  private final StructType schema;
  private final List<String> partitionColumns;
  private final DataWriteOptions writeOptions;

  /**
   * The columns not worth a Parquet dictionary, learnt from this sink's files, batch after batch.
   */
  private final DictionaryMemory dictionaries = new DictionaryMemory();

  /** The table's columns under schema evolution, or null: exactly {@link #schema}. */
  private final EvolvingLayout layout;

  private final Write write;

  /** The table's row rules the processor enforces, or null: the table has none we honour. */
  private final TableRowRules rowRules;

  /**
   * How a batch's rows go into the table: appended in new files (every stateless pipeline and
   * append output mode), merged by key (update mode: each key's row replaced), or the whole table
   * overwritten (complete mode). Each is one commit carrying the batch's {@link BatchTag}, so a
   * replayed batch is skipped whichever it is.
   */
  public sealed interface Write {
    /** New files added; the only kind that evolves columns or commits with fenced positions. */
    record Append() implements Write {}

    /** The rows of the batch replace the table's rows with the same key columns. */
    record MergeByKey(List<String> keyColumns) implements Write {
      public MergeByKey {
        keyColumns = List.copyOf(keyColumns);
      }
    }

    /** The rows of the batch are the table's new contents. */
    record Overwrite() implements Write {}
  }

  /**
   * Opens the table, creating it with {@code schema} if it does not exist yet; batches append.
   *
   * @throws IllegalStateException if the table exists with a different schema or partitioning
   */
  public DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions writeOptions)
      throws IOException {
    this(
        pipelineId, store, table, schema, partitionColumns, writeOptions, null, new Write.Append());
  }

  /**
   * A sink that merges each batch's rows by key, or overwrites the table with them: update and
   * complete output modes. Opens the table, creating it with {@code schema} if it does not exist.
   *
   * @throws IllegalStateException if the table exists with a different schema or partitioning
   */
  public DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      Write write)
      throws IOException {
    this(
        pipelineId,
        store,
        table,
        schema,
        partitionColumns,
        DataWriteOptions.defaults(),
        null,
        write);
  }

  /**
   * A sink whose columns evolve ({@code schema-evolution}): the table is opened (created, checked,
   * given {@code _rescued_data}) by {@link EvolvingLayout#open}, and a batch can add columns to it
   * in its own commit ({@link BatchWriter#addColumns}).
   */
  public DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      EvolvingLayout layout,
      List<String> partitionColumns,
      DataWriteOptions writeOptions)
      throws IOException {
    this(
        pipelineId,
        store,
        table,
        layout.tableSchema(),
        partitionColumns,
        writeOptions,
        layout,
        new Write.Append());
  }

  /**
   * An appending sink to a table with row rules (CHECK constraints, invariants, generated and
   * identity columns) that the pipeline's processor enforces ({@link
   * StatelessProcessor#withTableRules}): its rows are the table's ({@link
   * TableRowRules#tableSchema}), each batch assigns the identity values the rows lack and its
   * commit declares the rules and moves the identity high-water marks.
   */
  public DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      TableRowRules rowRules,
      List<String> partitionColumns,
      DataWriteOptions writeOptions)
      throws IOException {
    this(
        pipelineId,
        store,
        table,
        rowRules.tableSchema(),
        partitionColumns,
        writeOptions,
        null,
        new Write.Append(),
        rowRules);
  }

  private DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions writeOptions,
      EvolvingLayout layout,
      Write write)
      throws IOException {
    this(pipelineId, store, table, schema, partitionColumns, writeOptions, layout, write, null);
  }

  private DeltaTableSink(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      DataWriteOptions writeOptions,
      EvolvingLayout layout,
      Write write,
      TableRowRules rowRules)
      throws IOException {
    this.rowRules = rowRules;
    this.store = store;
    this.table = table;
    this.schema = schema;
    this.partitionColumns = List.copyOf(partitionColumns);
    this.writeOptions = writeOptions;
    this.layout = layout;
    this.write = Objects.requireNonNull(write, "write");
    createOrCheck(
        pipelineId,
        store,
        table,
        schema,
        this.partitionColumns,
        Map.of(),
        rowRules == null ? Set.of() : ProtocolSupport.ROW_RULE_FEATURES);
  }

  /** The row rules of this sink's table its processor must enforce, if it has any. */
  public Optional<TableRowRules> rowRules() {
    return Optional.ofNullable(rowRules);
  }

  /** The evolving layout of this sink's table, if it has one. */
  public Optional<EvolvingLayout> layout() {
    return Optional.ofNullable(layout);
  }

  /**
   * Creates the table with {@code schema} on first use; widens columns whose declared type is a
   * widening Delta allows ({@link #widenDeclared}); refuses a table that exists with another schema
   * or partitioning (schema evolution is not supported), and refuses to create one in a folder that
   * already holds files (see {@link DeltaTable#create}). Every sink of a pipeline uses it.
   *
   * @throws IllegalStateException naming the pipeline, the table and both schemas
   */
  public static void createOrCheck(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns)
      throws IOException {
    createOrCheck(pipelineId, store, table, schema, partitionColumns, Map.of(), Set.of());
  }

  /**
   * {@link #createOrCheck(String, ObjectStore, DeltaTable, StructType, List)}, creating a new table
   * with {@code properties} (an existing table keeps its own).
   */
  public static void createOrCheck(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      Map<String, String> properties)
      throws IOException {
    createOrCheck(pipelineId, store, table, schema, partitionColumns, properties, Set.of());
  }

  /**
   * {@link #createOrCheck(String, ObjectStore, DeltaTable, StructType, List, Map)} for a sink whose
   * rows are checked against the row rules in {@code enforced} ({@link
   * ProtocolSupport#ROW_RULE_FEATURES}).
   */
  static void createOrCheck(
      String pipelineId,
      ObjectStore store,
      DeltaTable table,
      StructType schema,
      List<String> partitionColumns,
      Map<String, String> properties,
      Set<String> enforced)
      throws IOException {
    if (!table.exists()) {
      try {
        table.create(schema, partitionColumns, properties);
      } catch (TableException e) {
        // A folder that holds files but no table, or a table another writer just created
        // differently.
        throw new IllegalStateException("Pipeline " + pipelineId + ": " + e.getMessage(), e);
      }
    }
    try {
      // a table another engine made may use a writer feature we do not honour: refuse it now,
      // by name, rather than at the first commit
      table.checkAppendable(enforced);
    } catch (TableException e) {
      throw new IllegalStateException("Pipeline " + pipelineId + ": " + e.getMessage(), e);
    }
    var snapshot = widenDeclared(pipelineId, table, schema);
    if (!snapshot.schema().equals(schema)
        || !snapshot.partitionColumns().equals(partitionColumns)) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + ": the table at "
              + store.location()
              + " has schema "
              + describe(snapshot.schema())
              + " partitioned by "
              + snapshot.partitionColumns()
              + " but the pipeline writes "
              + describe(schema)
              + " partitioned by "
              + partitionColumns
              + ". Write to a new table path, restore the declaration, or let new columns in with"
              + " schema-evolution.mode: add-columns (docs/SCHEMA_EVOLUTION.md).");
    }
  }

  /**
   * Widens the table's columns whose declared type is a widening Delta allows (int to long, double
   * or decimal, a decimal with more digits; docs/SCHEMA_EVOLUTION.md), in one commit that moves the
   * table to the {@code typeWidening} table feature. Only declared types widen, never types seen in
   * data. Idempotent: after a crash or on another instance, the table already has the declared
   * types and nothing is committed. Any other declared type change is refused, naming the column,
   * both types and what to do, rather than as two schemas to compare by eye.
   *
   * @return the table's snapshot after the widening (or as it was, if nothing widened)
   * @throws IllegalStateException if a declared type differs from the table's in another way
   */
  static Snapshot widenDeclared(String pipelineId, DeltaTable table, StructType declared)
      throws IOException {
    var snapshot = table.snapshot();
    Map<String, DataType> widen = new LinkedHashMap<>();
    for (var f : declared.fields()) {
      var existing = snapshot.schema().field(f.name());
      if (existing.isEmpty() || existing.get().type().equals(f.type())) {
        continue;
      }
      var has = existing.get().type();
      if (!TypeWidening.allowed(has, f.type()) || snapshot.partitionColumns().contains(f.name())) {
        throw new IllegalStateException(
            EvolvingLayout.SchemaMessages.typeChanged(
                pipelineId,
                table.location(),
                f.name(),
                has,
                f.type(),
                snapshot.partitionColumns().contains(f.name())));
      }
      widen.put(f.name(), f.type());
    }
    if (widen.isEmpty()) {
      return snapshot;
    }
    var widened = table.widenColumns(widen);
    LOG.info(
        "Pipeline {}: widened columns {} of the Delta table at {} as declared (table feature typeWidening)",
        pipelineId,
        widen.keySet(),
        table.location());
    return widened;
  }

  private static String describe(StructType schema) {
    StringBuilder b = new StringBuilder("[");
    schema
        .fields()
        .forEach(
            f ->
                b.append(b.length() > 1 ? ", " : "")
                    .append(f.name())
                    .append(' ')
                    .append(f.type().deltaName()));
    return b.append(']').toString();
  }

  @Override
  public CommitCounters commitCounters() {
    return table.counters();
  }

  @Override
  public String location() {
    return store.location();
  }

  @Override
  public Snapshot snapshot() throws IOException {
    return table.snapshot();
  }

  @Override
  public Optional<TableFacts> facts(String batchAppId, long sinceVersion) throws IOException {
    return Optional.of(facts(table, batchAppId, sinceVersion));
  }

  /**
   * {@link TableSink#facts} of a Delta table: its metaData id, latest version, the {@code txn} of
   * {@code batchAppId}, and the commits after {@code sinceVersion} that took its data out wholesale
   * (the caller's own, carrying its {@code txn}, excepted). One listing of the log, plus one read
   * per commit after {@code sinceVersion}.
   */
  public static TableFacts facts(DeltaTable table, String batchAppId, long sinceVersion)
      throws IOException {
    Optional<Snapshot> now = table.snapshotIfExists();
    if (now.isEmpty()) {
      return TableFacts.missing();
    }
    Snapshot snapshot = now.get();
    List<String> rewrites = new ArrayList<>();
    if (sinceVersion >= 0 && sinceVersion < snapshot.version()) {
      table
          .rewritesAfter(sinceVersion, snapshot.version(), Set.of(batchAppId))
          .forEach(r -> rewrites.add(r.describe()));
    }
    return new TableFacts(
        true,
        snapshot.tableId(),
        snapshot.version(),
        snapshot.latestTransactionVersion(batchAppId).orElse(-1),
        rewrites);
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    if (write instanceof Write.MergeByKey merge) {
      MergeTransaction txn = table.newMerge(tag.batch(), merge.keyColumns());
      txn.alsoRecord(tag.sourcePositions());
      return new TransactionWriter(txn);
    }
    if (write instanceof Write.Overwrite) {
      OverwriteTransaction txn = table.newOverwrite(tag.batch());
      txn.alsoRecord(tag.sourcePositions());
      return new TransactionWriter(txn);
    }
    // An early look, not the guard: a replay of a batch the table holds (a crash after this
    // table's commit, before the checkpoint's commits entry) writes no file and counts no row. The
    // append's transaction opens only at commit, on the latest snapshot, and the committer skips it
    // there if the key is held by then (docs/DESIGN.md, "Exactly once: the replay guard").
    long committed = table.latestTransactionVersion(tag.batch().appId()).orElse(-1);
    if (committed >= tag.batchId()) {
      return new AlreadyCommitted();
    }
    return newWriter(
        () -> {
          AppendTransaction txn = table.newAppend(tag.batch());
          txn.alsoRecord(tag.sourcePositions());
          return txn;
        });
  }

  @Override
  public BatchWriter beginFenced(List<PositionFence> fences) throws IOException {
    if (!(write instanceof Write.Append)) {
      throw new UnsupportedOperationException(
          "the table at " + location() + " is not written in group mode (" + write + ")");
    }
    List<PositionFence> copy = List.copyOf(fences);
    return newWriter(() -> table.newFencedAppend(copy));
  }

  private Writer newWriter(TransactionOpener opener) throws IOException {
    Snapshot latest = table.snapshot();
    ColumnMappingMode mapping = latest.columnMapping();
    if (mapping != ColumnMappingMode.NONE) {
      if (layout != null) {
        throw new IllegalStateException(
            "the table at "
                + location()
                + " maps its columns to physical names (delta.columnMapping.mode = "
                + mapping.name().toLowerCase(Locale.ROOT)
                + "); schema evolution cannot add columns to such a table yet. Remove"
                + " schema-evolution from the pipeline, or write to another table. Nothing was"
                + " written.");
      }
      // Spark finds a column-mapped table's columns in its files by physical name (or field id):
      // the files are written with the table's physical schema; the rows stay positional (the
      // table's columns are the pipeline's, checked at start).
      return new Writer(
          opener,
          mapping.physicalSchema(latest.schema()),
          latest.physicalPartitionColumns(),
          identities(latest));
    }
    if (layout == null) {
      return new Writer(opener, schema, partitionColumns, identities(latest));
    }
    // Under evolution the table may have gained columns in an earlier batch of this run. The writer
    // starts from the table's schema, and any column the layout holds beyond it (one a replay of an
    // already committed batch met, whose writer ignored it) rides in this batch's commit, so rows
    // are
    // never written with a column the table's schema lacks.
    StructType tableSchema = table.snapshot().schema();
    StructType wanted = layout.tableSchema();
    Writer writer = new Writer(opener, tableSchema, partitionColumns, List.of());
    if (wanted.size() > tableSchema.size()) {
      writer.addColumns(wanted.fields().subList(tableSchema.size(), wanted.size()));
    }
    return writer;
  }

  /**
   * The identity columns this batch assigns, each counting from the high-water mark of {@code
   * latest}, the snapshot the batch starts from; the commit checks the mark is still that.
   */
  private List<IdentityCounter> identities(Snapshot latest) {
    if (rowRules == null || rowRules.assignedIdentities().isEmpty()) {
      return List.of();
    }
    TableRules now = TableRules.of(latest);
    List<IdentityCounter> out = new ArrayList<>();
    for (TableRowRules.Assigned a : rowRules.assignedIdentities()) {
      TableRules.Identity identity = now.identity(a.identity().column());
      if (identity == null) {
        throw new IllegalStateException(
            "the table at "
                + location()
                + " no longer has identity column "
                + a.identity().column()
                + "; restart the pipeline to check rows against the table's new rules");
      }
      out.add(new IdentityCounter(identity, a.index()));
    }
    return out;
  }

  /**
   * One identity column's values in a batch: {@link TableRules.Identity#next()} onwards, one step
   * per row, in the order rows are written (unique and monotonic in the step's direction).
   */
  private static final class IdentityCounter {
    private final TableRules.Identity identity;
    private final int index;
    private long next;
    private long last;
    private boolean used;

    IdentityCounter(TableRules.Identity identity, int index) {
      this.identity = identity;
      this.index = index;
      this.next = identity.next();
    }

    void assign(Object[] row) {
      last = next;
      row[index] = next;
      next = Math.addExact(next, identity.step());
      used = true;
    }

    AppendTransaction.IdentityMark mark() {
      return new AppendTransaction.IdentityMark(identity.column(), identity.highWaterMark(), last);
    }
  }

  /** Opens the batch's transaction on the table's latest snapshot, when the files are written. */
  private interface TransactionOpener {
    AppendTransaction open() throws IOException;
  }

  private final class Writer implements BatchWriter {
    private final TransactionOpener opener;
    private final List<DataFile> finished = new ArrayList<>();
    private final List<StructField> added = new ArrayList<>();
    private final List<String> filePartitionColumns;
    private final List<IdentityCounter> identities;
    private StructType current;
    private PartitionedDataWriter files;
    private long rows;
    private boolean done;

    /**
     * @param schema the files' schema: the table's, in physical names under column mapping
     * @param filePartitionColumns the partition columns as the files name them
     */
    Writer(
        TransactionOpener opener,
        StructType schema,
        List<String> filePartitionColumns,
        List<IdentityCounter> identities) {
      this.opener = opener;
      this.identities = identities;
      this.current = schema;
      this.filePartitionColumns = List.copyOf(filePartitionColumns);
      this.files =
          DataFiles.newWriter(store, schema, this.filePartitionColumns, writeOptions, dictionaries);
    }

    /**
     * The files written so far keep the columns they have (readers see the new ones as null in
     * them); the rows from here on go to new files with the wider schema, all committed together
     * with the metaData action that adds the columns.
     */
    @Override
    public void addColumns(List<StructField> columns) throws IOException {
      finished.addAll(files.finish());
      List<StructField> wider = new ArrayList<>(current.fields());
      wider.addAll(columns);
      current = new StructType(wider);
      added.addAll(columns);
      files = DataFiles.newWriter(store, current, filePartitionColumns, writeOptions, dictionaries);
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) throws IOException {
      for (IdentityCounter identity : identities) {
        identity.assign(row);
      }
      files.write(row);
      rows++;
    }

    @Override
    public long rows() {
      return rows;
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      List<DataFile> written = new ArrayList<>(finished);
      written.addAll(files.finish());
      done = true;
      CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
      AppendTransaction txn = opener.open();
      if (!added.isEmpty()) {
        txn.addColumns(
            added); // the metaData action rides in the commit of the first rows that carry them
      }
      txn.addFiles(written);
      if (rowRules != null) {
        txn.enforce(rowRules.rules());
        for (IdentityCounter identity : identities) {
          if (identity.used) {
            txn.moveIdentity(identity.mark());
          }
        }
      }
      CommitResult result;
      try {
        result = txn.commit(commitInfo);
      } catch (PositionConflictException e) {
        // A fenced commit found another owner's position: this instance no longer owns the range.
        throw new PartitionMovedException(
            "the table at " + store.location() + " refused the batch: " + e.getMessage(), e);
      }
      return result.committed() ? result.tableVersion() : -1;
    }

    @Override
    public void close() {
      if (!done) {
        files.abort();
      }
    }
  }

  /** The table held the batch before it started: nothing to write, nothing to commit. */
  private static final class AlreadyCommitted implements BatchWriter {
    @Override
    public boolean alreadyCommitted() {
      return true;
    }

    @Override
    public void write(Object[] row) {}

    @Override
    public void addColumns(List<StructField> columns) {}

    @Override
    public long rows() {
      return 0;
    }

    @Override
    public long commit(Map<String, String> commitInfo) {
      return -1;
    }

    @Override
    public void close() {}
  }

  /**
   * A batch written through one merge or overwrite transaction, which itself knows whether the
   * table already holds the batch's {@code txn}: then rows are dropped and the commit is a skip.
   */
  private static final class TransactionWriter implements BatchWriter {
    private final TableTransaction txn;
    private long rows;

    TransactionWriter(TableTransaction txn) {
      this.txn = txn;
    }

    @Override
    public boolean alreadyCommitted() {
      return txn.alreadyCommitted();
    }

    @Override
    public void write(Object[] row) throws IOException {
      txn.write(row);
      if (!txn.alreadyCommitted()) {
        rows++;
      }
    }

    @Override
    public long rows() {
      return rows;
    }

    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      CommitResult result = txn.commit(commitInfo);
      return result.committed() ? result.tableVersion() : -1;
    }

    @Override
    public void close() {
      txn.close();
    }
  }
}
