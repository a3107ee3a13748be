package dev.tributary.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a record value wraps its row: {@code envelope} and {@code on-truncate} of {@code format.json}
 * and {@code format.avro}. With {@code envelope: debezium} the value is a Debezium change event:
 * the declared schema describes the table's row, read from {@code after} ({@code before} for a
 * delete), and every row gains the columns {@link #OP_COLUMN} and {@link #SOURCE_TS_COLUMN}
 * (docs/PIPELINE_REFERENCE.md, "Debezium change events").
 *
 * @param kind none (the value is the row) or debezium
 * @param onTruncate what a truncate event ({@code op: t}) does: fail the batch (default) or be
 *     skipped and counted
 */
public record EnvelopeSpec(Kind kind, OnTruncate onTruncate) {

  /** No envelope: the value is the row. */
  public static final EnvelopeSpec NONE = new EnvelopeSpec(Kind.NONE, OnTruncate.FAIL);

  /** The column holding the event's operation: c, u, d or r. */
  public static final String OP_COLUMN = "_op";

  /** The column holding the time of the change in the source database. */
  public static final String SOURCE_TS_COLUMN = "_source_ts";

  /** The {@code delete-when} of an upsert fed by Debezium events when none is declared. */
  public static final String DEFAULT_DELETE_WHEN = OP_COLUMN + " = 'd'";

  /** Checks both parts are given. */
  public EnvelopeSpec {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(onTruncate, "onTruncate");
  }

  /** A Debezium envelope whose truncate events do {@code onTruncate}. */
  public static EnvelopeSpec debezium(OnTruncate onTruncate) {
    return new EnvelopeSpec(Kind.DEBEZIUM, onTruncate);
  }

  /** Whether values are Debezium change events. */
  public boolean isDebezium() {
    return kind == Kind.DEBEZIUM;
  }

  /** The columns the envelope adds after the declared ones: none, or {@code _op, _source_ts}. */
  public List<ColumnSpec> columns() {
    return isDebezium()
        ? List.of(
            new ColumnSpec(OP_COLUMN, ColumnType.Primitive.STRING),
            new ColumnSpec(SOURCE_TS_COLUMN, ColumnType.Primitive.TIMESTAMP))
        : List.of();
  }

  /** {@code envelope}: what wraps the row. */
  public enum Kind {
    /** The value is the row. */
    NONE,
    /** The value is a Debezium change event whose {@code after} (or {@code before}) is the row. */
    DEBEZIUM;

    /** The name as written in files. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** {@code on-truncate}: what a Debezium truncate event does. */
  public enum OnTruncate {
    /** Fail the batch, naming the event: the table cannot follow a truncate by itself. */
    FAIL,
    /** Skip the event and count it as filtered: the table keeps its rows. */
    SKIP;

    /** The name as written in files. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
