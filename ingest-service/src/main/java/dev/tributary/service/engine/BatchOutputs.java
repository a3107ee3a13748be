package dev.tributary.service.engine;

import dev.tributary.table.types.StructField;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The writers of one batch and what went where: a processor puts the batch's rows here (result
 * rows, quarantined records, late events) and the counts are kept for the progress record and the
 * quarantine limit. A {@link ProgressModel} opens the writers (it decides how each table makes the
 * batch idempotent: a batch key, or fenced positions); the {@link BatchBody} commits them in one
 * order — the quarantine table, the late-events table, the sink — so a record that fails to parse
 * is durable before the rows that follow it, and closes them all.
 */
public final class BatchOutputs implements AutoCloseable {
  private final TableSink.BatchWriter main;
  private final TableSink.BatchWriter quarantine;
  private final TableSink.BatchWriter late;
  private long inputRows;
  private long filteredRows;
  private long lateRows;
  private long quarantinedRows;
  private String firstQuarantineError;
  private final Map<String, Long> violations = new LinkedHashMap<>();
  private long newestRecordMs = Long.MIN_VALUE;
  private String quarantineInput;
  private UnaryOperator<Object[]> quarantineLayout = UnaryOperator.identity();

  /**
   * @param late the late-events table's writer, or null when late events are only counted
   */
  public BatchOutputs(
      TableSink.BatchWriter main, TableSink.BatchWriter quarantine, TableSink.BatchWriter late) {
    this.main = main;
    this.quarantine = quarantine;
    this.late = late;
  }

  /** The sink's writer (a table, or stage 1's repartition topic). */
  public TableSink.BatchWriter sink() {
    return main;
  }

  /** The quarantine table's writer. */
  public TableSink.BatchWriter quarantineWriter() {
    return quarantine;
  }

  /** The late-events table's writer, if the pipeline declares one. */
  public Optional<TableSink.BatchWriter> lateWriter() {
    return Optional.ofNullable(late);
  }

  /** Closes every writer; an uncommitted one abandons its files (vacuum deletes them). */
  @Override
  public void close() {
    try (TableSink.BatchWriter s = main;
        TableSink.BatchWriter q = quarantine) {
      if (late != null) {
        late.close();
      }
    }
  }

  /**
   * Why the sink cannot take {@code row} (its record is then quarantined), or null: see {@link
   * TableSink.BatchWriter#refusal}.
   */
  public String refusal(Object[] row) throws IOException {
    return main.refusal(row);
  }

  /** A result row for the sink table. */
  public void output(Object[] row) throws IOException {
    main.write(row);
  }

  /**
   * A row that deletes its key from a sink that merges by key ({@code write: upsert}): a row
   * matching {@code delete-when}, or a tombstone's key.
   *
   * @throws UnsupportedOperationException if the sink does not merge by key
   */
  public void delete(Object[] row) throws IOException {
    main.delete(row);
  }

  /**
   * Adds nullable columns to the sink table in this batch's commit (schema evolution, see {@link
   * EvolvingLayout}).
   */
  public void addColumns(List<StructField> columns) throws IOException {
    main.addColumns(columns);
  }

  /**
   * The input the following quarantined rows come from (a pipeline with a stream-stream join,
   * {@link QuarantineRows#JOINED_SCHEMA}): from now on each row handed to {@link #quarantine} gets
   * it appended as its {@code input} column. Never called for a single-input pipeline.
   */
  public void quarantineInput(String input) {
    this.quarantineInput = input;
  }

  /**
   * How the following quarantine rows, their {@code input} column included, become rows of the
   * quarantine table: with a stream-stream join of a Kafka input and a table, each input's rows are
   * placed into the mixed layout ({@link QuarantineRows#joinedLayout}); unchanged otherwise.
   */
  public void quarantineLayout(UnaryOperator<Object[]> layout) {
    this.quarantineLayout = layout;
  }

  /** A record that could not be parsed or transformed (see {@link QuarantineRows}). */
  public void quarantine(Object[] row) throws IOException {
    if (quarantineInput != null) {
      row = Arrays.copyOf(row, row.length + 1);
      row[row.length - 1] = quarantineInput;
      row = quarantineLayout.apply(row);
    }
    if (quarantinedRows++ == 0
        && row.length > QuarantineRows.ERROR_INDEX
        && row[QuarantineRows.ERROR_INDEX] instanceof String error) {
      firstQuarantineError = error;
    }
    quarantine.write(row);
  }

  /**
   * An event behind the watermark: written to the late-events table if one is declared, else
   * dropped; counted either way.
   */
  public void late(Object[] row) throws IOException {
    lateRows++;
    if (late != null) {
      late.write(row);
    }
  }

  /** Whether late events are written (to a late-events table) rather than only counted. */
  public boolean writesLateRows() {
    return late != null;
  }

  /**
   * A Kafka record with timestamp {@code epochMs} was read into this batch (whatever became of it:
   * output, filtered, quarantined or late, it is committed with the batch).
   */
  public void recordTimestamp(long epochMs) {
    if (epochMs > newestRecordMs) {
      newestRecordMs = epochMs;
    }
  }

  /** The newest Kafka record timestamp read into this batch; empty if none carried one. */
  public Optional<Instant> newestRecordAt() {
    // Kafka uses -1 for "no timestamp" (message format v0)
    return newestRecordMs < 0
        ? Optional.empty()
        : Optional.of(Instant.ofEpochMilli(newestRecordMs));
  }

  public void countInput() {
    inputRows++;
  }

  public void countFiltered() {
    filteredRows++;
  }

  public long inputRows() {
    return inputRows;
  }

  public long filteredRows() {
    return filteredRows;
  }

  /**
   * Records sent to quarantine in this batch, counted even when the quarantine table already holds
   * the batch.
   */
  public long quarantinedRows() {
    return quarantinedRows;
  }

  /** The error of the batch's first quarantined record, or null. */
  public String firstQuarantineError() {
    return firstQuarantineError;
  }

  public long lateRows() {
    return lateRows;
  }

  /** A row violated the expectation {@code name} (whatever its action). */
  public void violated(String name) {
    violations.merge(name, 1L, Long::sum);
  }

  /** Rows that violated each expectation in this batch, by name; rules without one are absent. */
  public Map<String, Long> violations() {
    return Collections.unmodifiableMap(violations);
  }
}
