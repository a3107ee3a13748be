package dev.tributary.service.replay;

import dev.tributary.service.engine.TableSink;
import dev.tributary.table.types.StructField;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sink writer one replayed record's rows go to first: they reach the sink's writer only once
 * the record is known to have come through whole ({@link #forward}), so a record that produced a
 * row and was then quarantined (a later row refused by the table) is never both in the sink and in
 * the quarantine. Refusals and new columns are the sink writer's, asked at once.
 */
final class RecordRows implements TableSink.BatchWriter {
  private final TableSink.BatchWriter sink;
  private final List<Object[]> rows = new ArrayList<>();

  RecordRows(TableSink.BatchWriter sink) {
    this.sink = sink;
  }

  /** Writes the record's rows to the sink writer; returns how many. */
  int forward() throws IOException {
    for (Object[] row : rows) {
      sink.write(row);
    }
    return rows.size();
  }

  @Override
  public boolean alreadyCommitted() {
    return sink.alreadyCommitted();
  }

  @Override
  public void write(Object[] row) {
    rows.add(row);
  }

  @Override
  public void addColumns(List<StructField> columns) throws IOException {
    sink.addColumns(columns);
  }

  @Override
  public String refusal(Object[] row) throws IOException {
    return sink.refusal(row);
  }

  @Override
  public long rows() {
    return rows.size();
  }

  @Override
  public long commit(Map<String, String> commitInfo) {
    throw new IllegalStateException("a replayed record's rows are committed with the sink's");
  }

  @Override
  public void close() {
    // the sink writer is closed by the replay, once
  }
}
