package dev.tributary.service.sink.jdbc;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.sink.AlreadyHeld;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.TransactionId;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A database table as a batch sink (docs/DESIGN.md, "The JDBC sink"). A batch's rows stream into
 * the table (PostgreSQL: {@code COPY}) inside one database transaction, which ends by recording the
 * batch in the progress table — one row per (pipeline, checkpoint id, table) holding the last batch
 * committed — and commits. So the rows and the record of the batch become visible together or not
 * at all, and a replayed batch whose progress row already holds it is skipped ({@link #begin}
 * returns a no-op writer). An upsert stages the rows in a temporary table and moves the last row of
 * each key with {@code INSERT … ON CONFLICT (key) DO UPDATE}, so update-mode aggregates replace
 * their previous values.
 *
 * <p>Two writers of one batch (a zombie and the new owner) serialise on the progress row: the
 * second one's record updates nothing (it holds this batch already) and it rolls back.
 *
 * <p>Failures: connecting and reading the progress row are retried under {@link #RETRY} (connection
 * failures, a database starting or shutting down); a connection lost mid-batch fails the batch,
 * which is replayed at the next start; a commit whose outcome is unknown is settled by reading the
 * progress row back. A row the table refuses (a constraint, a value out of range) and what only the
 * declaration or the database can fix (a missing table or column, a type the column cannot take,
 * the login, privileges) are a {@link SinkRefusedException} naming the row's source offset or what
 * to change. Not thread-safe: the engine writes one batch at a time (a batch's rows may come from
 * the engine's writer thread, its begin and commit from the engine's thread).
 */
public final class JdbcTableSink implements TableSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(JdbcTableSink.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The progress table's name, in the target table's schema. */
  public static final String PROGRESS_TABLE = "tributary_progress";

  /**
   * Connecting and reading the progress row, site {@code jdbc.connect}: six attempts over about 15
   * seconds (0.5 s doubling up to 4 s), transient failures only.
   */
  public static final RetryPolicy RETRY =
      RetryPolicy.named("jdbc.connect")
          .withMaxAttempts(6)
          .withBackoff(Duration.ofMillis(500), Duration.ofSeconds(4))
          .withJitter(0.2)
          .withMaxTotalTime(Duration.ofSeconds(30));

  private final String pipelineId;
  private final JdbcSinkSpec spec;
  private final StructType schema;
  private final SqlDialect dialect;
  private final RetryPolicy retry;
  private final List<String> tableName;
  private final String target;
  private final String progress;
  private final Provenance.Columns provenanceColumns;
  private Connection connection;

  /**
   * Connects (retrying), creates the table if it is missing and {@code create-table} says so,
   * checks that it can take every output column (and, for an upsert, has a unique index on the
   * key), and creates the progress table if it is missing (an existing one needs no CREATE
   * privilege).
   *
   * @param schema the pipeline's output columns
   * @throws SinkRefusedException if the table is missing, cannot take a column, or the database
   *     refuses the login or a statement
   * @throws IOException if the database stays unreachable through the retries
   */
  public JdbcTableSink(
      String pipelineId,
      JdbcSinkSpec spec,
      StructType schema,
      SqlDialect dialect,
      RetryPolicy retry)
      throws IOException {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.spec = Objects.requireNonNull(spec, "spec");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.dialect = Objects.requireNonNull(dialect, "dialect");
    this.retry = retry.retryingOn(this::transient_);
    this.tableName = List.of(spec.table().split("\\."));
    this.target = dialect.qualified(tableName);
    List<String> progressName = new ArrayList<>(tableName.subList(0, tableName.size() - 1));
    progressName.add(PROGRESS_TABLE);
    this.progress = dialect.qualified(progressName);
    this.provenanceColumns = Provenance.Columns.of(schema);
    call(
        "open the table",
        () -> {
          prepare(connection(), progressName);
          return null;
        });
  }

  @Override
  public String location() {
    return spec.location();
  }

  /** The pipeline's output columns, as the table receives them. */
  public StructType schema() {
    return schema;
  }

  private void prepare(Connection c, List<String> progressName) throws SQLException {
    Optional<SqlDialect.Table> found = dialect.describe(c, tableName);
    if (found.isEmpty()) {
      if (!spec.createTable()) {
        throw new SinkRefusedException(
            JdbcMessages.missingTable(pipelineId, spec, schema, dialect));
      }
      dialect.createTable(c, tableName, schema, spec.key());
      found = dialect.describe(c, tableName);
      LOG.info("Pipeline {}: created the table {} ({})", pipelineId, spec.table(), spec.url());
    }
    SqlDialect.Table table = found.orElseThrow();
    List<String> problems = new ArrayList<>();
    for (var field : schema.fields()) {
      Optional<SqlDialect.Column> column = table.column(field.name());
      if (column.isEmpty()) {
        problems.add(
            "it has no column "
                + dialect.quote(field.name())
                + " (add it: ALTER TABLE "
                + target
                + " ADD COLUMN "
                + dialect.quote(field.name())
                + " "
                + dialect.columnType(field.type())
                + ")");
        continue;
      }
      dialect
          .cannotTake(field.type(), column.get())
          .ifPresent(
              why ->
                  problems.add(
                      "its column "
                          + dialect.quote(field.name())
                          + " is "
                          + column.get().declaredType()
                          + ", which cannot take the pipeline's "
                          + field.type().deltaName()
                          + " values: "
                          + why));
    }
    for (SqlDialect.Column column : table.columns()) {
      if (schema.indexOf(column.name()) < 0 && column.notNull() && !column.hasDefault()) {
        problems.add(
            "its column "
                + dialect.quote(column.name())
                + " is NOT NULL without a default, and the pipeline does not write it");
      }
    }
    if (spec.write() == JdbcSinkSpec.Write.UPSERT
        && table.uniqueKeys().stream()
            .noneMatch(
                k -> new java.util.HashSet<>(k).equals(new java.util.HashSet<>(spec.key())))) {
      problems.add(
          "an upsert by "
              + spec.key()
              + " needs a unique index on exactly those columns (CREATE UNIQUE INDEX ON "
              + target
              + " ("
              + String.join(", ", spec.key().stream().map(dialect::quote).toList())
              + "))");
    }
    if (!problems.isEmpty()) {
      throw new SinkRefusedException(JdbcMessages.tableMismatch(pipelineId, spec, problems));
    }
    if (dialect.describe(c, progressName).isEmpty()) {
      // only when missing: PostgreSQL's CREATE TABLE IF NOT EXISTS needs CREATE on the schema even
      // when the table exists, and a login without it may write a progress table made beforehand
      dialect.createProgressTable(c, progressName);
    }
  }

  /** The last batch of {@code batchAppId} the table holds, or -1. */
  long heldBatch(String batchAppId) throws IOException {
    return call("read the progress table", () -> heldBatch(connection(), batchAppId));
  }

  private long heldBatch(Connection c, String batchAppId) throws SQLException {
    String[] key = split(batchAppId);
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT batch_id FROM "
                + progress
                + " WHERE pipeline = ? AND checkpoint_id = ? AND target_table = ?")) {
      s.setString(1, key[0]);
      s.setString(2, key[1]);
      s.setString(3, spec.table());
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? r.getLong(1) : -1;
      }
    }
  }

  /** {@code <pipeline>@<checkpoint id>} as pipeline and checkpoint id ("" for a key without id). */
  private static String[] split(String batchAppId) {
    int at = batchAppId.indexOf('@');
    return at < 0
        ? new String[] {batchAppId, ""}
        : new String[] {batchAppId.substring(0, at), batchAppId.substring(at + 1)};
  }

  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    long held = heldBatch(tag.batch().appId());
    if (held >= tag.batchId()) {
      return new AlreadyHeld();
    }
    return new Writer(tag);
  }

  /**
   * What the table holds: its identity (the table's oid: a dropped and re-created table has a new
   * one), and as version and held batch the checkpoint's last batch in the progress table.
   */
  @Override
  public Optional<TableFacts> facts(String batchAppId, long sinceVersion) throws IOException {
    return Optional.of(
        call(
            "read the table",
            () -> {
              Connection c = connection();
              Optional<SqlDialect.Table> table = dialect.describe(c, tableName);
              if (table.isEmpty()) {
                return TableFacts.missing();
              }
              long held = heldBatch(c, batchAppId);
              return new TableFacts(true, table.get().id(), held, held, List.of());
            }));
  }

  /**
   * A database table has no RESTORE of its own and {@code starting-offsets: table} needs a Delta
   * sink: the ways on are a backup of both tables, or starting over.
   */
  @Override
  public String waysOnAfterLoss(long batch) {
    return "restore the table and its progress table ("
        + progress
        + ") from a backup taken at batch "
        + batch
        + " or later, then start again; or deliberately start over: delete the checkpoint, this"
        + " pipeline's rows of the progress table and of the table (and the pipeline's quarantine"
        + " and late-events tables), and every record still in the source is read again into"
        + " them (docs/OPERATIONS.md, \"The JDBC sink\").";
  }

  /**
   * The other checkpoints of the pipeline in the progress table (their last batch, newest last) and
   * the source positions the latest batch of any of them recorded.
   */
  @Override
  public TableTxns.TableHistory history(TableTxns txns) throws IOException {
    return call(
        "read the progress table",
        () -> {
          List<SetTransaction> others = new ArrayList<>();
          Map<dev.tributary.checkpoint.SourcePartition, Long> positions = new TreeMap<>();
          String own = txns.checkpointId().orElse("");
          try (PreparedStatement s =
              connection()
                  .prepareStatement(
                      "SELECT checkpoint_id, batch_id, committed_at, source_positions FROM "
                          + progress
                          + " WHERE pipeline = ? AND target_table = ? ORDER BY committed_at")) {
            s.setString(1, txns.pipelineId());
            s.setString(2, spec.table());
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                String checkpoint = r.getString(1);
                long committed = r.getTimestamp(3).getTime();
                if (!checkpoint.equals(own)) {
                  String appId =
                      checkpoint.isEmpty()
                          ? txns.pipelineId()
                          : txns.pipelineId() + "@" + checkpoint;
                  others.add(new SetTransaction(appId, r.getLong(2), committed));
                }
                positions = positions(txns, r.getString(4));
              }
            }
          }
          return new TableTxns.TableHistory(location(), -1, others, positions);
        });
  }

  private static Map<dev.tributary.checkpoint.SourcePartition, Long> positions(
      TableTxns txns, String json) {
    Map<dev.tributary.checkpoint.SourcePartition, Long> out = new TreeMap<>();
    if (json == null || json.isBlank()) {
      return out;
    }
    try {
      Map<String, Long> recorded = JSON.readValue(json, new TypeReference<Map<String, Long>>() {});
      String prefix = txns.pipelineId() + ":";
      recorded.forEach(
          (appId, offset) -> {
            if (appId.startsWith(prefix)) {
              String rest = appId.substring(prefix.length());
              int colon = rest.lastIndexOf(':');
              if (colon > 0) {
                out.put(
                    new dev.tributary.checkpoint.SourcePartition(
                        rest.substring(0, colon), Integer.parseInt(rest.substring(colon + 1))),
                    offset);
              }
            }
          });
    } catch (IOException | RuntimeException notOurs) {
      // a row another tool wrote: no positions
    }
    return out;
  }

  /** Closes the connection. */
  @Override
  public void close() {
    dropConnection();
  }

  private Connection connection() throws SQLException {
    if (connection == null || connection.isClosed()) {
      Properties props = new Properties();
      props.setProperty("ApplicationName", "tributary-" + pipelineId);
      props.setProperty("connectTimeout", "10");
      props.setProperty("tcpKeepAlive", "true");
      spec.user().ifPresent(u -> props.setProperty("user", u));
      spec.password().ifPresent(p -> props.setProperty("password", p));
      spec.properties().forEach(props::setProperty);
      connection = DriverManager.getConnection(spec.url(), props);
    }
    return connection;
  }

  private void dropConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // a broken connection: nothing to close
      }
      connection = null;
    }
  }

  private boolean transient_(Exception e) {
    return e instanceof SQLException sql && dialect.classify(sql) == SqlDialect.Failure.TRANSIENT;
  }

  /** A database action of the sink, retried. */
  private interface Action<T> {
    T run() throws SQLException;
  }

  /**
   * Runs {@code action} under the retry policy, on a fresh connection after a transient failure;
   * what is left after the retries becomes an {@link IOException} (transient: the run is retried)
   * or a {@link SinkRefusedException} (refused: the declaration or the database must change).
   */
  private <T> T call(String what, Action<T> action) throws IOException {
    try {
      return retry.call(
          attempt -> {
            try {
              return action.run();
            } catch (SQLException e) {
              if (transient_(e)) {
                dropConnection();
              }
              throw e;
            }
          });
    } catch (SQLException e) {
      if (transient_(e)) {
        throw new IOException(JdbcMessages.unreachable(pipelineId, spec, what, e), e);
      }
      throw new SinkRefusedException(JdbcMessages.refused(pipelineId, spec, what, e), e);
    }
  }

  /**
   * One batch's transaction: rows streamed by the dialect's loader (straight into the table, or
   * into a staging table for an upsert), then the progress row, then the commit.
   */
  private final class Writer implements BatchWriter {
    private final BatchTag tag;
    private final Provenance provenance = new Provenance(provenanceColumns);
    private final String stage = dialect.quote("tributary_stage");
    private SqlDialect.RowLoader loader;
    private long rows;
    private boolean done;

    Writer(BatchTag tag) throws IOException {
      this.tag = tag;
      call(
          "start the batch's transaction",
          () -> {
            connection().setAutoCommit(false);
            return null;
          });
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) throws IOException {
      try {
        if (loader == null) {
          loader = openLoader();
        }
        loader.add(row);
      } catch (SQLException e) {
        throw failed(e);
      }
      provenance.add(row);
      rows++;
    }

    private SqlDialect.RowLoader openLoader() throws SQLException {
      Connection c = connection;
      if (spec.write() == JdbcSinkSpec.Write.UPSERT) {
        try (Statement s = c.createStatement()) {
          s.execute(dialect.createStage(stage, target, schema));
        }
        return dialect.loader(c, stage, schema);
      }
      return dialect.loader(c, target, schema);
    }

    @Override
    public long rows() {
      return rows;
    }

    /**
     * Finishes the load, moves staged rows, records the batch and commits.
     *
     * @return the batch id (the table's "version" for the table guard), or -1 when another writer
     *     committed this batch first
     */
    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      Connection c = connection;
      try {
        if (loader != null) {
          SqlDialect.RowLoader finishing = loader;
          loader = null;
          finishing.finish();
          if (spec.write() == JdbcSinkSpec.Write.UPSERT) {
            try (Statement s = c.createStatement()) {
              s.executeUpdate(dialect.upsertFromStage(stage, target, schema, spec.key()));
            }
          }
        }
        int recorded;
        String[] key = split(tag.batch().appId());
        try (PreparedStatement s = c.prepareStatement(dialect.recordBatch(progress))) {
          s.setString(1, key[0]);
          s.setString(2, key[1]);
          s.setString(3, spec.table());
          s.setLong(4, tag.batchId());
          s.setString(5, positionsJson(tag.sourcePositions()));
          recorded = s.executeUpdate();
        }
        if (recorded == 0) {
          c.rollback();
          c.setAutoCommit(true);
          done = true;
          LOG.info(
              "Pipeline {}: batch {} was already committed to {} by another writer; nothing written",
              pipelineId,
              tag.batchId(),
              spec.table());
          return -1;
        }
      } catch (SQLException e) {
        throw failed(e);
      }
      // the rows and the progress row are in the open transaction, not yet committed
      CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
      try {
        c.commit();
        c.setAutoCommit(true);
        done = true;
        return tag.batchId();
      } catch (SQLException e) {
        done = true;
        dropConnection();
        if (dialect.classify(e) != SqlDialect.Failure.TRANSIENT) {
          throw failed(e);
        }
        // The commit may or may not have happened: the progress row settles it.
        long held = heldBatch(tag.batch().appId());
        if (held >= tag.batchId()) {
          return tag.batchId();
        }
        throw new IOException(JdbcMessages.lostMidBatch(pipelineId, spec, tag.batchId(), e), e);
      }
    }

    /**
     * A failure while the batch's transaction is open: rolled back, then translated. Returns the
     * transient failure to throw; throws a refusal.
     */
    private IOException failed(SQLException e) {
      SqlDialect.Failure kind = dialect.classify(e);
      abandon();
      if (kind == SqlDialect.Failure.TRANSIENT) {
        dropConnection();
        return new IOException(JdbcMessages.lostMidBatch(pipelineId, spec, tag.batchId(), e), e);
      }
      if (kind == SqlDialect.Failure.DATA) {
        Optional<Long> line = dialect.failedRow(e);
        Optional<String> source = line.flatMap(provenance::describe);
        throw new SinkRefusedException(
            JdbcMessages.rowRefused(pipelineId, spec, tag.batchId(), line, source, e), e);
      }
      throw new SinkRefusedException(
          JdbcMessages.refused(pipelineId, spec, "write batch " + tag.batchId(), e), e);
    }

    /** Rolls the open transaction back (uncommitted rows vanish with it). */
    private void abandon() {
      done = true;
      if (loader != null) {
        loader.cancel();
        loader = null;
      }
      if (connection != null) {
        try {
          connection.rollback();
          connection.setAutoCommit(true);
        } catch (SQLException e) {
          dropConnection(); // a connection that cannot roll back is of no use
        }
      }
    }

    @Override
    public void close() {
      if (!done) {
        abandon();
      }
    }
  }

  private static String positionsJson(List<TransactionId> positions) {
    Map<String, Long> out = new LinkedHashMap<>();
    positions.forEach(p -> out.put(p.appId(), p.version()));
    try {
      return JSON.writeValueAsString(out);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
