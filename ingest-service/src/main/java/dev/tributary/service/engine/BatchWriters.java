package dev.tributary.service.engine;

import java.util.Objects;
import java.util.Optional;

/**
 * The writers one batch puts its rows into, opened by the batch's {@link ProgressModel} (which
 * decides how each table makes the batch idempotent: a batch key, or fenced positions). The {@link
 * BatchBody} commits them in one order — the quarantine table, the late-events table, the sink — so
 * a record that fails to parse is durable before the rows that follow it, and closes them all.
 *
 * @param sink where the result rows go (a table, or stage 1's repartition topic)
 * @param quarantine the quarantine table's writer
 * @param late the late-events table's writer, if the pipeline declares one
 */
public record BatchWriters(
    TableSink.BatchWriter sink,
    TableSink.BatchWriter quarantine,
    Optional<TableSink.BatchWriter> late)
    implements AutoCloseable {
  public BatchWriters {
    Objects.requireNonNull(sink, "sink");
    Objects.requireNonNull(quarantine, "quarantine");
    Objects.requireNonNull(late, "late");
  }

  /** The outputs a processor writes the batch's rows to. */
  BatchOutputs outputs() {
    return new BatchOutputs(sink, quarantine, late.orElse(null));
  }

  /** Closes every writer; an uncommitted one abandons its files (vacuum deletes them). */
  @Override
  public void close() {
    try (TableSink.BatchWriter s = sink;
        TableSink.BatchWriter q = quarantine) {
      late.ifPresent(TableSink.BatchWriter::close);
    }
  }
}
