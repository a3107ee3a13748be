package dev.tributary.service.sink.jdbc;

import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.table.types.StructType;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * The JDBC sink's messages: what failed, where (pipeline, database, table, batch, the source
 * record), and what to do. They never contain the password (the driver does not echo it, and the
 * caller masks the pipeline's secrets in whatever it shows).
 */
final class JdbcMessages {
  private JdbcMessages() {}

  static String missingTable(
      String pipeline, JdbcSinkSpec spec, StructType schema, SqlDialect dialect) {
    String columns =
        schema.fields().stream()
            .map(f -> dialect.quote(f.name()) + " " + dialect.columnType(f.type()))
            .collect(Collectors.joining(", "));
    String key =
        spec.key().isEmpty()
            ? ""
            : ", PRIMARY KEY ("
                + spec.key().stream().map(dialect::quote).collect(Collectors.joining(", "))
                + ")";
    return "Pipeline "
        + pipeline
        + ": the table "
        + spec.table()
        + " does not exist in "
        + spec.url()
        + ". Create it (CREATE TABLE "
        + dialect.qualified(List.of(spec.table().split("\\.")))
        + " ("
        + columns
        + key
        + ")), or let the pipeline create it with sink.jdbc.create-table: true";
  }

  static String tableMismatch(String pipeline, JdbcSinkSpec spec, List<String> problems) {
    return "Pipeline "
        + pipeline
        + ": the table "
        + spec.table()
        + " in "
        + spec.url()
        + " cannot take the pipeline's rows: "
        + String.join("; ", problems)
        + ". Change the table, or write to another table (sink.jdbc.table)";
  }

  static String unreachable(String pipeline, JdbcSinkSpec spec, String what, SQLException e) {
    return "Pipeline "
        + pipeline
        + ": cannot "
        + what
        + " "
        + spec.table()
        + " at "
        + spec.url()
        + " after retrying: "
        + describe(e)
        + ". Check that the database runs and is reachable from this host (sink.jdbc.url)";
  }

  static String refused(String pipeline, JdbcSinkSpec spec, String what, SQLException e) {
    return "Pipeline "
        + pipeline
        + ": the database at "
        + spec.url()
        + " refused to "
        + what
        + " (table "
        + spec.table()
        + "): "
        + describe(e)
        + hint(e);
  }

  static String rowRefused(
      String pipeline,
      JdbcSinkSpec spec,
      long batch,
      Optional<Long> line,
      Optional<String> source,
      SQLException e) {
    String row =
        source
            .map(s -> "the row of " + s)
            .orElse(line.map(l -> "row " + l + " of the batch").orElse("a row"));
    return "Pipeline "
        + pipeline
        + ": the table "
        + spec.table()
        + " in "
        + spec.url()
        + " refused "
        + row
        + " in batch "
        + batch
        + ": "
        + describe(e)
        + ". Nothing of the batch was written; it is replayed at the next start and fails the same"
        + " way until the table's constraints or types allow the row";
  }

  static String lostMidBatch(String pipeline, JdbcSinkSpec spec, long batch, SQLException e) {
    return "Pipeline "
        + pipeline
        + ": lost the connection to "
        + spec.url()
        + " while writing batch "
        + batch
        + " to "
        + spec.table()
        + " ("
        + describe(e)
        + "); the transaction was not committed and the batch is written again when the run"
        + " restarts";
  }

  /** The server's message with its detail (which names the values), or the driver's. */
  static String describe(SQLException e) {
    if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
      ServerErrorMessage m = p.getServerErrorMessage();
      StringBuilder text = new StringBuilder(String.valueOf(m.getMessage()));
      if (m.getDetail() != null) {
        text.append(" (").append(m.getDetail()).append(')');
      }
      if (m.getSQLState() != null) {
        text.append(" [SQLSTATE ").append(m.getSQLState()).append(']');
      }
      return text.toString();
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return e.getSQLState() == null ? message : message + " [SQLSTATE " + e.getSQLState() + "]";
  }

  private static String hint(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (state.startsWith("28")) {
      return ". Check sink.jdbc.user and sink.jdbc.password";
    }
    if (state.equals("42501")) {
      return ". Grant the user the privileges docs/OPERATIONS.md lists (\"The JDBC sink\")";
    }
    if (state.equals("3D000")) {
      return ". Check the database name in sink.jdbc.url";
    }
    return "";
  }
}
