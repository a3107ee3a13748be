package dev.tributary.service.sink.jdbc;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructType;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * What differs between databases, so that the JDBC sink's protocol ({@link JdbcTableSink}: rows and
 * a progress row in one transaction) is written once: names, types, the catalog queries, bulk
 * loading, the upsert statement and how errors are classified. PostgreSQL is {@link
 * PostgresDialect}; MySQL/MariaDB would add {@code INSERT … ON DUPLICATE KEY UPDATE} and {@code
 * LOAD DATA}, and report their error codes through {@link #classify}.
 */
public interface SqlDialect {

  /** What a database error means for the batch. */
  enum Failure {
    /** The connection or the server's resources failed: retrying (or replaying) may succeed. */
    TRANSIENT,
    /** A row's value does not fit (a constraint, a type's range): name the row. */
    DATA,
    /** The declaration or the database must change (missing table, privileges, login). */
    REFUSED
  }

  /** A column of an existing table, as the catalog describes it. */
  record Column(
      String name, String typeName, String declaredType, boolean notNull, boolean hasDefault) {}

  /**
   * An existing table.
   *
   * @param id the table's identity (PostgreSQL: its oid), new for a re-created table
   * @param columns its columns in order
   * @param uniqueKeys the column sets of its unique indexes (without predicates)
   */
  record Table(String id, List<Column> columns, List<List<String>> uniqueKeys) {
    public Table {
      columns = List.copyOf(columns);
      uniqueKeys = List.copyOf(uniqueKeys);
    }

    /** The column named exactly {@code name}. */
    public Optional<Column> column(String name) {
      return columns.stream().filter(c -> c.name().equals(name)).findFirst();
    }
  }

  /** {@code identifier} quoted, so that any name is taken as written. */
  String quote(String identifier);

  /** {@code schema.table} or {@code table}, each part quoted. */
  default String qualified(List<String> nameParts) {
    return String.join(".", nameParts.stream().map(this::quote).toList());
  }

  /** The column type {@code create-table} gives a column of {@code type}. */
  String columnType(DataType type);

  /**
   * Why an existing column cannot take values of {@code type}, or empty when it can (the same type
   * or a wider one).
   */
  Optional<String> cannotTake(DataType type, Column column);

  /** The existing table, or empty when it does not exist. */
  Optional<Table> describe(Connection c, List<String> nameParts) throws SQLException;

  /** Creates the table if it does not exist: {@code schema}'s columns, a primary key when given. */
  void createTable(Connection c, List<String> nameParts, StructType schema, List<String> key)
      throws SQLException;

  /** Creates the progress table if it does not exist (docs/PIPELINE_REFERENCE.md shows its DDL). */
  void createProgressTable(Connection c, List<String> nameParts) throws SQLException;

  /**
   * Opens the loading of one batch's rows into {@code target} on {@code c} (in its transaction):
   * PostgreSQL streams them with {@code COPY}.
   */
  RowLoader loader(Connection c, String target, StructType schema) throws SQLException;

  /**
   * The statement that moves the staged rows of an upsert into the table: the last staged row of
   * each key replaces the table's row with that key, or is inserted.
   */
  String upsertFromStage(String stage, String target, StructType schema, List<String> key);

  /** The statement that creates the upsert's staging table, dropped at commit. */
  String createStage(String stage, String target, StructType schema);

  /**
   * The statement that records a batch in the progress table: inserts the row of (pipeline,
   * checkpoint, table), or moves its batch id forward. Its update count is 1 when the batch is
   * recorded now, 0 when the row already holds this batch or a later one (another writer committed
   * it first). Parameters: pipeline, checkpoint id, table, batch id, source positions.
   */
  String recordBatch(String progressTable);

  /** What {@code e} means for the batch. */
  Failure classify(SQLException e);

  /**
   * The 1-based index of the loaded row an error names, when the database says (PostgreSQL: {@code
   * COPY …, line N}).
   */
  default Optional<Long> failedRow(SQLException e) {
    return Optional.empty();
  }

  /** Streams one batch's rows into a table. */
  interface RowLoader {
    /** Adds a row aligned with the schema. */
    void add(Object[] row) throws SQLException;

    /** Ends the load: every row added is in the table (in the open transaction). */
    void finish() throws SQLException;

    /** Abandons the load (the transaction is rolled back by the caller). */
    void cancel();
  }
}
