package dev.tributary.service.parse;

import dev.tributary.table.types.StructType;
import java.util.List;

/**
 * Turns one Kafka record (key and value bytes, with its provenance for messages) into a row of the
 * pipeline's declared columns: the format SPI. {@link JsonRecordParser} is the JSON implementation,
 * {@code parse.avro.AvroRecordDecoder} the Avro one, {@code parse.protobuf.ProtobufWireDecoder} the
 * Protobuf one.
 *
 * <p>Contract of {@link #decode}:
 *
 * <ul>
 *   <li>it never throws for any bytes a producer can send: a record that cannot become a row is a
 *       {@link ParseResult.Failure} whose message names what is wrong (field path, schema id, ...),
 *       and goes to the quarantine table;
 *   <li>a {@link ParseResult.Success}'s row is aligned with {@link #schema()}: nested structs as
 *       nested {@code Object[]}, values in the Java classes of {@link
 *       dev.tributary.table.types.DataType} (String, Integer, Long, Double, Boolean, {@code
 *       Instant} truncated to microseconds, {@code LocalDate}, {@code BigDecimal} at the declared
 *       scale), exactly as {@link JsonRecordParser} produces them;
 *   <li>a decoder of an envelope may return {@link ParseResult.Skipped} for a well-formed record
 *       that holds no row (counted as filtered), or throw an exception that names the record for
 *       one the pipeline must not pass (a Debezium truncate): that fails the batch;
 *   <li>it throws {@link DecoderUnavailableException} only when it cannot decide now (a schema
 *       registry that is down): that is not the record's fault, so the batch fails and is replayed,
 *       and nothing is quarantined.
 * </ul>
 *
 * <p>Implementations are thread-safe and built once per pipeline; the hot path should not allocate
 * beyond the row itself.
 */
public interface RecordDecoder {

  /** The schema rows are aligned with: the declared columns (value columns, then key columns). */
  StructType schema();

  /**
   * Decodes one record; see the class comment. {@code key} and {@code value} may be null (a null
   * key, a tombstone).
   *
   * @throws DecoderUnavailableException when the outcome cannot be known now (retry later)
   */
  ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value);

  /**
   * Decodes only the key of a record, for a tombstone (a null value) that deletes its key in an
   * upsert: a row aligned with {@link #schema()} in which only the columns the key gives are set.
   * Never throws for any bytes; a key that cannot be decoded is a failure naming it (never a {@link
   * ParseResult.Skipped}).
   *
   * @param keyColumns the columns the caller needs from the key: a format whose keys may be a bare
   *     value (a JSON number or text) gives it to the one column when there is one
   * @throws DecoderUnavailableException when the outcome cannot be known now (retry later)
   */
  default ParseResult decodeKey(
      String topic, int partition, long offset, byte[] key, List<String> keyColumns) {
    return ParseResult.failure(RecordErrors.keyNotDecoded());
  }

  /**
   * This decoder reporting, with each row, what a record carries beyond the declared columns
   * ({@link DecodedExtras}): the rescued fields as JSON when {@code rescue}, and new top-level
   * fields with their inferred types when {@code reportNewFields}. Formats that cannot do so
   * refuse; the pipeline's validation refuses {@code schema-evolution} for them first.
   */
  default RecordDecoder withEvolution(boolean rescue, boolean reportNewFields) {
    throw new UnsupportedOperationException(
        "schema evolution is not available for " + getClass().getSimpleName());
  }
}
