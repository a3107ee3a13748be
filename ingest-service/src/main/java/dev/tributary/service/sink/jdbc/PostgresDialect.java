package dev.tributary.service.sink.jdbc;

import dev.tributary.service.sink.RowJson;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * PostgreSQL (tested with 15): {@code COPY … FROM STDIN} in text format streams a batch's rows (as
 * fast as a plain {@code COPY} of the same rows: {@code bench/run-sink-bench}, README
 * "Benchmarks"), an upsert stages them in a temporary table and moves them with {@code INSERT …
 * SELECT DISTINCT ON (key) … ON CONFLICT (key) DO UPDATE}, and the progress row is one {@code
 * INSERT … ON CONFLICT DO UPDATE … WHERE batch_id < excluded.batch_id}.
 *
 * <p>Type mapping ({@code create-table}), and the existing column types that take each type:
 *
 * <table>
 *   <tr><th>output type</th><th>created as</th><th>also accepted</th></tr>
 *   <tr><td>string</td><td>text</td><td>varchar, char, citext</td></tr>
 *   <tr><td>byte, short</td><td>smallint</td><td>integer, bigint, numeric</td></tr>
 *   <tr><td>integer</td><td>integer</td><td>bigint, numeric, double precision</td></tr>
 *   <tr><td>long</td><td>bigint</td><td>numeric</td></tr>
 *   <tr><td>float</td><td>real</td><td>double precision, numeric</td></tr>
 *   <tr><td>double</td><td>double precision</td><td>numeric</td></tr>
 *   <tr><td>boolean</td><td>boolean</td><td></td></tr>
 *   <tr><td>timestamp</td><td>timestamp with time zone</td><td>timestamp (UTC wall time)</td></tr>
 *   <tr><td>timestamp_ntz</td><td>timestamp without time zone</td><td></td></tr>
 *   <tr><td>date</td><td>date</td><td>timestamp, timestamp with time zone</td></tr>
 *   <tr><td>binary</td><td>bytea</td><td></td></tr>
 *   <tr><td>decimal(p,s)</td><td>numeric(p,s)</td><td>numeric, numeric(P,S) with S ≥ s and P − S ≥ p − s</td></tr>
 *   <tr><td>struct, array, map</td><td>jsonb</td><td>json, text</td></tr>
 * </table>
 */
public final class PostgresDialect implements SqlDialect {
  /** {@code COPY orders, line 42, column amount: "x"}: the row COPY stopped at. */
  private static final Pattern COPY_LINE = Pattern.compile("COPY [^,]+, line (\\d+)");

  private static final Map<PrimitiveType, Set<String>> ACCEPTED =
      Map.ofEntries(
          Map.entry(PrimitiveType.STRING, Set.of("text", "varchar", "bpchar", "citext")),
          Map.entry(PrimitiveType.BYTE, Set.of("int2", "int4", "int8", "numeric")),
          Map.entry(PrimitiveType.SHORT, Set.of("int2", "int4", "int8", "numeric")),
          Map.entry(PrimitiveType.FLOAT, Set.of("float4", "float8", "numeric")),
          Map.entry(PrimitiveType.TIMESTAMP_NTZ, Set.of("timestamp")),
          Map.entry(PrimitiveType.INTEGER, Set.of("int4", "int8", "numeric", "float8")),
          Map.entry(PrimitiveType.LONG, Set.of("int8", "numeric")),
          Map.entry(PrimitiveType.DOUBLE, Set.of("float8", "numeric")),
          Map.entry(PrimitiveType.BOOLEAN, Set.of("bool")),
          Map.entry(PrimitiveType.TIMESTAMP, Set.of("timestamptz", "timestamp")),
          Map.entry(PrimitiveType.DATE, Set.of("date", "timestamp", "timestamptz")),
          Map.entry(PrimitiveType.BINARY, Set.of("bytea")));

  @Override
  public String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  @Override
  public String columnType(DataType type) {
    if (type instanceof DecimalType d) {
      return "numeric(" + d.precision() + "," + d.scale() + ")";
    }
    if (type instanceof StructType || type instanceof ArrayType || type instanceof MapType) {
      return "jsonb";
    }
    return switch ((PrimitiveType) type) {
      case STRING -> "text";
      case BYTE, SHORT -> "smallint";
      case FLOAT -> "real";
      case TIMESTAMP_NTZ -> "timestamp without time zone";
      case INTEGER -> "integer";
      case LONG -> "bigint";
      case DOUBLE -> "double precision";
      case BOOLEAN -> "boolean";
      case TIMESTAMP -> "timestamp with time zone";
      case DATE -> "date";
      case BINARY -> "bytea";
    };
  }

  @Override
  public Optional<String> cannotTake(DataType type, Column column) {
    String has = column.typeName();
    if (type instanceof StructType || type instanceof ArrayType || type instanceof MapType) {
      return Set.of("jsonb", "json", "text").contains(has)
          ? Optional.empty()
          : Optional.of("a nested column needs jsonb, json or text");
    }
    if (type instanceof DecimalType d) {
      if (!has.equals("numeric")) {
        return Optional.of("decimal(" + d.precision() + "," + d.scale() + ") needs numeric");
      }
      Matcher m = Pattern.compile("numeric\\((\\d+),(\\d+)\\)").matcher(column.declaredType());
      if (m.matches()) {
        int precision = Integer.parseInt(m.group(1));
        int scale = Integer.parseInt(m.group(2));
        if (scale < d.scale() || precision - scale < d.precision() - d.scale()) {
          return Optional.of(
              column.declaredType()
                  + " cannot hold every decimal("
                  + d.precision()
                  + ","
                  + d.scale()
                  + ") without rounding or overflow");
        }
      }
      return Optional.empty();
    }
    return ACCEPTED.get((PrimitiveType) type).contains(has)
        ? Optional.empty()
        : Optional.of(
            ((PrimitiveType) type).deltaName()
                + " needs "
                + columnType(type)
                + " (or "
                + ACCEPTED.get((PrimitiveType) type).stream()
                    .sorted()
                    .collect(Collectors.joining(", "))
                + ")");
  }

  @Override
  public Optional<Table> describe(Connection c, List<String> nameParts) throws SQLException {
    Long oid;
    try (PreparedStatement s = c.prepareStatement("SELECT to_regclass(?)::oid")) {
      s.setString(1, qualified(nameParts));
      try (ResultSet r = s.executeQuery()) {
        r.next();
        oid = r.getObject(1) == null ? null : r.getLong(1);
      }
    }
    if (oid == null) {
      return Optional.empty();
    }
    List<Column> columns = new ArrayList<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT a.attname, t.typname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
                + " a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> ''"
                + " FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid"
                + " WHERE a.attrelid = ? AND a.attnum > 0 AND NOT a.attisdropped"
                + " ORDER BY a.attnum")) {
      s.setLong(1, oid);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          columns.add(
              new Column(
                  r.getString(1),
                  r.getString(2),
                  r.getString(3),
                  r.getBoolean(4),
                  r.getBoolean(5)));
        }
      }
    }
    Map<Long, List<String>> unique = new LinkedHashMap<>();
    try (PreparedStatement s =
        c.prepareStatement(
            "SELECT i.indexrelid, a.attname FROM pg_index i"
                + " JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
                + " WHERE i.indrelid = ? AND i.indisunique AND i.indpred IS NULL"
                + " ORDER BY i.indexrelid, a.attname")) {
      s.setLong(1, oid);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          unique.computeIfAbsent(r.getLong(1), k -> new ArrayList<>()).add(r.getString(2));
        }
      }
    }
    return Optional.of(new Table(Long.toString(oid), columns, List.copyOf(unique.values())));
  }

  @Override
  public void createTable(Connection c, List<String> nameParts, StructType schema, List<String> key)
      throws SQLException {
    StringBuilder ddl =
        new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(qualified(nameParts)).append(" (");
    for (int i = 0; i < schema.size(); i++) {
      ddl.append(i == 0 ? "" : ", ")
          .append(quote(schema.fields().get(i).name()))
          .append(' ')
          .append(columnType(schema.fields().get(i).type()));
    }
    if (!key.isEmpty()) {
      ddl.append(", PRIMARY KEY (")
          .append(key.stream().map(this::quote).collect(Collectors.joining(", ")))
          .append(")");
    }
    ddl.append(")");
    execute(c, ddl.toString());
  }

  @Override
  public void createProgressTable(Connection c, List<String> nameParts) throws SQLException {
    execute(
        c,
        "CREATE TABLE IF NOT EXISTS "
            + qualified(nameParts)
            + " (pipeline text NOT NULL, checkpoint_id text NOT NULL, target_table text NOT NULL,"
            + " batch_id bigint NOT NULL, source_positions text,"
            + " committed_at timestamp with time zone NOT NULL DEFAULT now(),"
            + " PRIMARY KEY (pipeline, checkpoint_id, target_table))");
  }

  @Override
  public String recordBatch(String progressTable) {
    return "INSERT INTO "
        + progressTable
        + " AS p (pipeline, checkpoint_id, target_table, batch_id, source_positions, committed_at)"
        + " VALUES (?, ?, ?, ?, ?, now())"
        + " ON CONFLICT (pipeline, checkpoint_id, target_table) DO UPDATE"
        + " SET batch_id = excluded.batch_id, source_positions = excluded.source_positions,"
        + " committed_at = excluded.committed_at"
        + " WHERE p.batch_id < excluded.batch_id";
  }

  @Override
  public String createStage(String stage, String target, StructType schema) {
    String columns =
        schema.fieldNames().stream().map(this::quote).collect(Collectors.joining(", "));
    return "CREATE TEMPORARY TABLE "
        + stage
        + " ON COMMIT DROP AS SELECT "
        + columns
        + " FROM "
        + target
        + " WITH NO DATA";
  }

  /**
   * {@code DISTINCT ON (key) … ORDER BY key, ctid DESC}: the last staged row of each key. A staging
   * table filled by one {@code COPY} and never updated keeps its rows in arrival order, so {@code
   * ctid} is that order.
   */
  @Override
  public String upsertFromStage(String stage, String target, StructType schema, List<String> key) {
    String columns =
        schema.fieldNames().stream().map(this::quote).collect(Collectors.joining(", "));
    String keys = key.stream().map(this::quote).collect(Collectors.joining(", "));
    Set<String> keySet = new HashSet<>(key);
    List<String> set = new ArrayList<>();
    for (String name : schema.fieldNames()) {
      if (!keySet.contains(name)) {
        set.add(quote(name) + " = excluded." + quote(name));
      }
    }
    return "INSERT INTO "
        + target
        + " ("
        + columns
        + ") SELECT DISTINCT ON ("
        + keys
        + ") "
        + columns
        + " FROM "
        + stage
        + " ORDER BY "
        + keys
        + ", ctid DESC ON CONFLICT ("
        + keys
        + ") DO "
        + (set.isEmpty() ? "NOTHING" : "UPDATE SET " + String.join(", ", set));
  }

  /**
   * Connection failures (class 08), insufficient resources (53), operator intervention (57P:
   * shutdown, crash, not yet accepting connections), serialization failures and deadlocks (40) are
   * transient; data exceptions (22) and integrity violations (23) are the row's; everything else
   * (login 28, a missing database 3D, a missing table or privilege 42, …) is refused.
   */
  @Override
  public Failure classify(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08")
            || state.startsWith("53")
            || state.startsWith("57P")
            || state.startsWith("40")) {
          return Failure.TRANSIENT;
        }
        if (state.startsWith("22") || state.startsWith("23")) {
          return Failure.DATA;
        }
        return Failure.REFUSED;
      }
      if (t instanceof java.io.IOException) {
        return Failure.TRANSIENT;
      }
    }
    return Failure.TRANSIENT; // no state: the driver lost the connection
  }

  @Override
  public Optional<Long> failedRow(SQLException e) {
    if (e instanceof PSQLException p && p.getServerErrorMessage() != null) {
      ServerErrorMessage m = p.getServerErrorMessage();
      if (m.getWhere() != null) {
        Matcher line = COPY_LINE.matcher(m.getWhere());
        if (line.find()) {
          return Optional.of(Long.parseLong(line.group(1)));
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public RowLoader loader(Connection c, String target, StructType schema) throws SQLException {
    String columns =
        schema.fieldNames().stream().map(this::quote).collect(Collectors.joining(", "));
    CopyIn copy =
        c.unwrap(PGConnection.class)
            .getCopyAPI()
            .copyIn("COPY " + target + " (" + columns + ") FROM STDIN");
    return new CopyLoader(copy, schema);
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /**
   * Rows as {@code COPY} text: tab-separated, {@code \N} for null, backslash escapes; sent in
   * chunks of about 64 KB.
   */
  static final class CopyLoader implements RowLoader {
    private static final int CHUNK = 64 * 1024;
    private final CopyIn copy;
    private final StructType schema;
    private final StringBuilder text = new StringBuilder(CHUNK + 4096);

    CopyLoader(CopyIn copy, StructType schema) {
      this.copy = copy;
      this.schema = schema;
    }

    @Override
    public void add(Object[] row) throws SQLException {
      appendRow(text, schema, row);
      if (text.length() >= CHUNK) {
        send();
      }
    }

    @Override
    public void finish() throws SQLException {
      send();
      copy.endCopy();
    }

    @Override
    public void cancel() {
      try {
        if (copy.isActive()) {
          copy.cancelCopy();
        }
      } catch (SQLException ignored) {
        // the transaction is rolled back anyway
      }
    }

    private void send() throws SQLException {
      if (text.length() > 0) {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        copy.writeToCopy(bytes, 0, bytes.length);
        text.setLength(0);
      }
    }

    /** One row of {@code COPY} text, ending with a newline. */
    static void appendRow(StringBuilder out, StructType schema, Object[] row) {
      for (int i = 0; i < schema.size(); i++) {
        if (i > 0) {
          out.append('\t');
        }
        Object v = i < row.length ? row[i] : null;
        if (v == null) {
          out.append("\\N");
        } else {
          appendValue(out, schema.fields().get(i).type(), v);
        }
      }
      out.append('\n');
    }

    private static void appendValue(StringBuilder out, DataType type, Object v) {
      if (type instanceof StructType || type instanceof ArrayType || type instanceof MapType) {
        escape(out, RowJson.text(type, v));
      } else if (v instanceof String s) {
        escape(out, s);
      } else if (v instanceof byte[] bytes) {
        out.append("\\\\x"); // bytea hex input, its backslash escaped for COPY
        for (byte b : bytes) {
          out.append(Character.forDigit((b >> 4) & 0xf, 16))
              .append(Character.forDigit(b & 0xf, 16));
        }
      } else if (v instanceof Boolean b) {
        out.append(b ? 't' : 'f');
      } else if (v instanceof BigDecimal d) {
        out.append(d.toPlainString());
      } else {
        // numbers, Instant (ISO-8601 with Z), LocalDate and LocalDateTime (ISO): plain text
        // PostgreSQL reads as is
        out.append(v);
      }
    }

    private static void escape(StringBuilder out, String s) {
      for (int i = 0; i < s.length(); i++) {
        char ch = s.charAt(i);
        switch (ch) {
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          case '\r' -> out.append("\\r");
          case '\t' -> out.append("\\t");
          default -> out.append(ch);
        }
      }
    }
  }
}
