package dev.tributary.service.parse.avro;

import dev.tributary.config.EnvelopeSpec;
import dev.tributary.service.parse.FramedDecoding;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.SchemaIdCache;
import dev.tributary.service.parse.WriterRow;
import dev.tributary.service.parse.WriterRowDecoder;
import dev.tributary.service.parse.debezium.DebeziumDecoder;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes Avro records into every field of their writer schema ({@code format.avro.columns: all},
 * docs/FORMATS.md "Every field of the writer schema"). Per value schema id, once: the writer schema
 * is fetched, its fields mapped to columns ({@link WriterColumns}; with {@code envelope: debezium},
 * the fields of the {@code after} record, else of {@code before}) and a decoder of exactly those
 * columns compiled: an {@link AvroRecordDecoder} (its projection is the whole writer record), or a
 * {@link DebeziumDecoder} for change events, so the envelope's rules (op, deletes, control events,
 * truncates) are the declared pipeline's.
 *
 * <p>A row is the columns every record has ({@link #schema()}: {@code _op, _source_ts} with the
 * envelope, else none) followed by one {@link WriterRow} holding the writer's fields, their values
 * and, when {@link #withRecordKeys} was asked for, the record key's field names (its writer schema
 * compiled once per key schema id). A key that is null or does not decode into a record is then a
 * failure naming it: the upsert of such a record would have no key.
 *
 * <p>Thread-safe.
 */
public final class WriterSchemaDecoder implements WriterRowDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(WriterSchemaDecoder.class);

  private final String pipelineId;
  private final SchemaSource schemas;
  private final long maxRecordBytes;
  private final EnvelopeSpec envelope;
  private final boolean recordKeys;
  private final StructType fixed;
  private final SchemaIdCache<Compiled> values;
  private final SchemaIdCache<Compiled> keys;

  /** A decoder of every writer field of the values, reading change events with {@code envelope}. */
  public WriterSchemaDecoder(
      String pipelineId, SchemaSource schemas, long maxRecordBytes, EnvelopeSpec envelope) {
    this(pipelineId, schemas, maxRecordBytes, envelope, false);
  }

  private WriterSchemaDecoder(
      String pipelineId,
      SchemaSource schemas,
      long maxRecordBytes,
      EnvelopeSpec envelope,
      boolean recordKeys) {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.schemas = Objects.requireNonNull(schemas, "schemas");
    this.maxRecordBytes = FramedDecoding.checkedMaxRecordBytes(maxRecordBytes);
    this.envelope = Objects.requireNonNull(envelope, "envelope");
    this.recordKeys = recordKeys;
    this.fixed =
        new StructType(
            envelope.isDebezium()
                ? List.of(
                    StructField.nullable(EnvelopeSpec.OP_COLUMN, PrimitiveType.STRING),
                    StructField.nullable(EnvelopeSpec.SOURCE_TS_COLUMN, PrimitiveType.TIMESTAMP))
                : List.of());
    this.values = new SchemaIdCache<>(id -> compile(id, Part.VALUE));
    this.keys = new SchemaIdCache<>(id -> compile(id, Part.KEY));
  }

  @Override
  public WriterSchemaDecoder withRecordKeys() {
    return new WriterSchemaDecoder(pipelineId, schemas, maxRecordBytes, envelope, true);
  }

  /**
   * The columns every record has: {@code _op, _source_ts} with the Debezium envelope, else none.
   */
  @Override
  public StructType schema() {
    return fixed;
  }

  @Override
  public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
    if (value == null && envelope.isDebezium()) {
      return ParseResult.skipped("tombstone");
    }
    ParseResult refused = FramedDecoding.precheck(topic, partition, offset, value, maxRecordBytes);
    if (refused != null) {
      return refused;
    }
    Compiled c;
    try {
      c = compiled(values, value);
    } catch (AvroMisfit e) {
      return FramedDecoding.failure(topic, partition, offset, "value", e.getMessage());
    }
    ParseResult read = c.decoder.decode(topic, partition, offset, null, value);
    if (!(read instanceof ParseResult.Success success)) {
      return read;
    }
    List<String> keyFields = List.of();
    if (recordKeys) {
      ParseResult keyRead = keyRow(topic, partition, offset, key);
      if (!(keyRead instanceof ParseResult.Success keySuccess)) {
        return keyRead;
      }
      keyFields = WriterRow.of(keySuccess.row()).schema().fieldNames();
    }
    Object[] decoded = success.row();
    int width = c.columns.size();
    Object[] out = new Object[fixed.size() + 1];
    System.arraycopy(decoded, width, out, 0, fixed.size()); // _op, _source_ts follow the row
    out[fixed.size()] =
        new WriterRow(c.columns, Arrays.copyOf(decoded, width), keyFields, c.origin());
    return ParseResult.success(out);
  }

  /**
   * Decodes a tombstone's key: a row whose {@link WriterRow} holds the key's fields (each table
   * aligns them with its columns of the same names), the fixed columns null.
   */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] key, List<String> keyColumns) {
    return keyRow(topic, partition, offset, key);
  }

  private ParseResult keyRow(String topic, int partition, long offset, byte[] key) {
    if (key == null) {
      return FramedDecoding.failure(topic, partition, offset, "key", AvroErrors.noRecordKey());
    }
    Compiled c;
    try {
      c = compiled(keys, key);
    } catch (AvroMisfit e) {
      return FramedDecoding.failure(topic, partition, offset, "key", e.getMessage());
    }
    // the key record read as a value: its fields are its columns
    ParseResult read = c.decoder.decode(topic, partition, offset, null, key);
    if (read instanceof ParseResult.Failure failure) {
      return ParseResult.failure(failure.error().replace(": value: ", ": key: "));
    }
    if (!(read instanceof ParseResult.Success success)) {
      return read;
    }
    Object[] out = new Object[fixed.size() + 1];
    out[fixed.size()] = new WriterRow(c.columns, success.row(), c.columns.fieldNames(), c.origin());
    return ParseResult.success(out);
  }

  private static Compiled compiled(SchemaIdCache<Compiled> cache, byte[] bytes) {
    String header = ConfluentWireFormat.headerProblem(bytes, 0, bytes.length);
    if (header != null) {
      throw new AvroMisfit(header);
    }
    Compiled c = cache.get(ConfluentWireFormat.schemaId(bytes, 0));
    if (!c.usable()) {
      throw new AvroMisfit(c.problem);
    }
    return c;
  }

  /** Which part of a record a schema id was met in. */
  private enum Part {
    VALUE,
    KEY
  }

  private Compiled compile(int id, Part part) {
    RegisteredSchema registered;
    try {
      registered = schemas.schemaById(id);
    } catch (UnknownSchemaException e) {
      return Compiled.refused(id, e.getMessage(), System.nanoTime());
    }
    if (!registered.type().equalsIgnoreCase("AVRO")) {
      return Compiled.refused(id, AvroErrors.notAvro(id, registered.type()), 0);
    }
    Schema writer;
    try {
      Schema.Parser parser = new Schema.Parser();
      for (RegisteredSchema.Reference ref : registered.references()) {
        parser.parse(ref.text());
      }
      writer = parser.parse(registered.text());
    } catch (RuntimeException e) {
      return Compiled.refused(id, AvroErrors.badSchema(id, e.getMessage()), 0);
    }
    boolean cdc = envelope.isDebezium();
    Schema record = part == Part.VALUE && cdc ? rowRecord(writer) : WriterColumns.nonNull(writer);
    if (record == null && part == Part.VALUE && cdc) {
      // a control topic's schema (transaction metadata, heartbeats): no row columns, the envelope
      // decoder skips its events
      record = Schema.createRecord("NoRow", null, "tributary", false, List.of());
    }
    if (record == null || record.getType() != Schema.Type.RECORD) {
      return Compiled.refused(
          id,
          part == Part.KEY
              ? AvroErrors.keyNotRecord(id, AvroErrors.describe(writer))
              : AvroErrors.valueNotRecord(id, AvroErrors.describe(writer)),
          0);
    }
    WriterColumns columns =
        WriterColumns.of(
            record, cdc ? WriterColumns.Flavour.DEBEZIUM : WriterColumns.Flavour.PLAIN);
    if (!columns.skipped().isEmpty()) {
      LOG.warn(
          "Pipeline {}: writer schema id {} has fields of types without a column (arrays, maps,"
              + " bytes, unions of several types): {}; columns: all leaves them out",
          pipelineId,
          id,
          columns.skipped());
    }
    LinkedHashMap<String, String> types = columns.columns();
    try {
      RecordDecoder decoder =
          part == Part.VALUE && cdc
              ? DebeziumDecoder.avro(
                  pipelineId,
                  schemas,
                  types,
                  new LinkedHashMap<>(),
                  maxRecordBytes,
                  envelope.onTruncate())
              : new AvroRecordDecoder(schemas, types, new LinkedHashMap<>(), maxRecordBytes);
      return new Compiled(id, decoder, JsonRecordParser.schemaOf(types), null, 0);
    } catch (IllegalArgumentException e) {
      return Compiled.refused(id, AvroErrors.badSchema(id, e.getMessage()), 0);
    }
  }

  /** The table row's record of a Debezium envelope: {@code after}'s, else {@code before}'s. */
  private static Schema rowRecord(Schema envelope) {
    if (envelope.getType() != Schema.Type.RECORD) {
      return null;
    }
    for (String side : List.of("after", "before")) {
      Schema.Field field = envelope.getField(side);
      Schema row = field == null ? null : WriterColumns.nonNull(field.schema());
      if (row != null && row.getType() == Schema.Type.RECORD) {
        return row;
      }
    }
    return null;
  }

  /** A compiled writer schema id: its columns and their decoder, or why it is refused. */
  private record Compiled(
      int id, RecordDecoder decoder, StructType columns, String problem, long failedAt)
      implements SchemaIdCache.Entry {

    static Compiled refused(int id, String problem, long failedAt) {
      return new Compiled(id, null, null, problem, failedAt);
    }

    @Override
    public boolean usable() {
      return decoder != null;
    }

    String origin() {
      return "writer schema id " + id;
    }
  }
}
