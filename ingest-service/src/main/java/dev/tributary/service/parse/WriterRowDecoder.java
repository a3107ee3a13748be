package dev.tributary.service.parse;

/**
 * A decoder of every field of each record's writer schema ({@code columns: all}): its rows are the
 * columns every record has ({@link #schema()}) followed by one {@link WriterRow}.
 */
public interface WriterRowDecoder extends RecordDecoder {
  /**
   * This decoder also decoding each record key, whose field names become {@link WriterRow#key()}
   * (an upsert without a declared {@code key}); a record whose key does not decode is then a
   * failure naming it.
   */
  WriterRowDecoder withRecordKeys();
}
