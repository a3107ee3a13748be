package dev.tributary.service.replay;

import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.TableSink;
import java.util.Map;

/**
 * The quarantine writer of one replayed record: keeps the error the processor gave it (the record
 * still fails), written to the quarantine table by the replay's own commit instead.
 */
final class CapturedQuarantine implements TableSink.BatchWriter {
  private static final int ERROR = 6;

  private String error;

  static {
    if (!"error".equals(QuarantineRows.SCHEMA.fields().get(ERROR).name())) {
      throw new AssertionError("the quarantine table's error column moved");
    }
  }

  /** The record's new error, or null when it was not quarantined. */
  String error() {
    return error;
  }

  @Override
  public boolean alreadyCommitted() {
    return false;
  }

  @Override
  public void write(Object[] row) {
    if (error == null) {
      error = row[ERROR] instanceof String e ? e : String.valueOf(row[ERROR]);
    }
  }

  @Override
  public long rows() {
    return error == null ? 0 : 1;
  }

  @Override
  public long commit(Map<String, String> commitInfo) {
    throw new IllegalStateException("a replayed record's new error is committed by the replay");
  }

  @Override
  public void close() {}
}
