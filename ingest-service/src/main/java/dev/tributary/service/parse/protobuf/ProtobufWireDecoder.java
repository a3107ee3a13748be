package dev.tributary.service.parse.protobuf;

import dev.tributary.service.parse.EpochUnit;
import dev.tributary.service.parse.FramedDecoding;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.SchemaIdCache;
import dev.tributary.service.parse.WireErrors;
import dev.tributary.service.parse.avro.SchemaSource;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.StructType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code format.protobuf} {@link RecordDecoder}: Protobuf records in the Confluent wire format
 * ({@link ConfluentWireFormat}: magic byte, schema id, message indexes, message) into rows of the
 * declared columns, the value's columns then the key's when {@code format.protobuf.key} is
 * declared.
 *
 * <p>Per schema id, once: the schema is fetched from the {@link SchemaSource} (the registry), must
 * be of type {@code PROTOBUF}, is compiled with its references ({@link ProtobufSchema#compile}) and
 * bound to the declared columns ({@link ProtobufRecordDecoder}); the outcome, a decoder or the
 * reason its records are quarantined, is cached, so the hot path does no schema work. The value
 * must be the configured {@code message}; the key may be any message of its schema.
 *
 * <p>Quarantined, with a reason starting {@code topic/partition offset N: value:} (or {@code
 * key:}): a null value, a value above max-record-size, a header that is not the wire format, an
 * unknown id (404), a schema that is not Protobuf or does not compile, a schema without the
 * configured message or whose message cannot fill the declared columns, message indexes naming
 * another message, bytes that do not decode, a value that does not fit its column. A registry that
 * is down throws {@link dev.tributary.service.parse.DecoderUnavailableException} (the batch fails
 * and is replayed). A null key leaves the key columns null.
 *
 * <p>Thread-safe.
 */
public final class ProtobufWireDecoder implements RecordDecoder {
  private final SchemaSource schemas;
  private final Part value;
  private final Part key;
  private final StructType schema;
  private final long maxRecordBytes;

  /**
   * Whether each row carries the fields no declared column reads, as JSON ({@code rescue: true}).
   */
  private final boolean rescue;

  /**
   * Whether each row reports its undeclared top-level fields as new columns ({@code mode:
   * add-columns}).
   */
  private final boolean reportNewFields;

  /**
   * A decoder of the declared columns ({@code column: type}, as {@code format.protobuf.schema}).
   *
   * @param message the value's message full name ({@code com.example.Order})
   * @param keyColumns the key's columns; empty: the key is not decoded
   * @throws IllegalArgumentException naming the column, for an invalid declaration
   */
  public ProtobufWireDecoder(
      SchemaSource schemas,
      String message,
      LinkedHashMap<String, String> valueColumns,
      LinkedHashMap<String, String> keyColumns,
      long maxRecordBytes) {
    this.schemas = Objects.requireNonNull(schemas, "schemas");
    Objects.requireNonNull(message, "message");
    this.maxRecordBytes = FramedDecoding.checkedMaxRecordBytes(maxRecordBytes);
    if (valueColumns.isEmpty()) {
      throw new IllegalArgumentException(ProtobufErrors.noColumns());
    }
    this.value = new Part("value", message, valueColumns);
    this.key = keyColumns.isEmpty() ? null : new Part("key", null, keyColumns);
    this.schema = FramedDecoding.rowSchema(value.declared, key == null ? null : key.declared);
    this.rescue = false;
    this.reportNewFields = false;
  }

  private ProtobufWireDecoder(ProtobufWireDecoder plain, boolean rescue, boolean reportNewFields) {
    this.schemas = plain.schemas;
    this.value = plain.value;
    this.key = plain.key;
    this.schema = plain.schema;
    this.maxRecordBytes = plain.maxRecordBytes;
    this.rescue = rescue;
    this.reportNewFields = reportNewFields;
  }

  /**
   * With {@code reportNewFields} ({@code mode: add-columns}), each row's extras report the value
   * message's undeclared top-level fields as new columns; with {@code rescue}, they hold the
   * undeclared fields left (all of them without {@code reportNewFields}) as JSON ({@link
   * ProtobufRecordDecoder#decodeWithExtras}). The compiled schemas are shared; the key is decoded
   * as without evolution.
   */
  @Override
  public RecordDecoder withEvolution(boolean rescue, boolean reportNewFields) {
    return rescue || reportNewFields
        ? new ProtobufWireDecoder(this, rescue, reportNewFields)
        : this;
  }

  @Override
  public StructType schema() {
    return schema;
  }

  @Override
  public ParseResult decode(
      String topic, int partition, long offset, byte[] keyBytes, byte[] valueBytes) {
    ParseResult refused =
        FramedDecoding.precheck(topic, partition, offset, valueBytes, maxRecordBytes);
    if (refused != null) {
      return refused;
    }
    ParseResult v = value.read(valueBytes, rescue, reportNewFields);
    if (!(v instanceof ParseResult.Success valueRow)) {
      return FramedDecoding.failure(
          topic, partition, offset, "value", ((ParseResult.Failure) v).error());
    }
    if (key == null) {
      return v;
    }
    Object[] keyRow;
    if (keyBytes == null) {
      keyRow = new Object[key.declared.size()];
    } else {
      ParseResult k = key.read(keyBytes, false, false);
      if (!(k instanceof ParseResult.Success s)) {
        return FramedDecoding.failure(
            topic, partition, offset, "key", ((ParseResult.Failure) k).error());
      }
      keyRow = s.row();
    }
    return new ParseResult.Success(FramedDecoding.join(valueRow.row(), keyRow), valueRow.extras());
  }

  /** Decodes a tombstone's key into the key's declared columns; the value's columns are null. */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] keyBytes, List<String> keyColumns) {
    if (key == null) {
      return ParseResult.failure(
          WireErrors.tombstone() + "; " + WireErrors.keyNotDeclared("protobuf"));
    }
    if (keyBytes == null) {
      return ParseResult.failure(WireErrors.tombstoneWithoutKey());
    }
    ParseResult k = key.read(keyBytes, false, false);
    if (!(k instanceof ParseResult.Success s)) {
      return FramedDecoding.failure(
          topic, partition, offset, "key", ((ParseResult.Failure) k).error());
    }
    return ParseResult.success(FramedDecoding.join(new Object[value.declared.size()], s.row()));
  }

  /** A schema id bound to the declared columns, or why its records are quarantined. */
  private record Compiled(int id, ProtobufRecordDecoder decoder, String problem, long failedAt)
      implements SchemaIdCache.Entry {
    @Override
    public boolean usable() {
      return decoder != null;
    }
  }

  /** The value or the key: its declared columns and its compiled schemas. */
  private final class Part {
    private final String name;
    private final String message;
    private final StructType declared;
    private final Map<String, EpochUnit> units;
    private final SchemaIdCache<Compiled> byId = new SchemaIdCache<>(this::compile);

    Part(String name, String message, LinkedHashMap<String, String> columns) {
      this.name = name;
      this.message = message;
      this.declared = JsonRecordParser.schemaOf(columns);
      this.units = JsonRecordParser.epochUnitsOf(columns);
    }

    ParseResult read(byte[] bytes, boolean rescue, boolean reportNewFields) {
      String header = ConfluentWireFormat.headerProblem(bytes, 0, bytes.length);
      if (header != null) {
        return ParseResult.failure(header);
      }
      Compiled c = byId.get(ConfluentWireFormat.schemaId(bytes, 0));
      if (c.decoder == null) {
        return ParseResult.failure(c.problem);
      }
      int length = bytes.length - ConfluentWireFormat.HEADER_SIZE;
      ParseResult r =
          rescue || reportNewFields
              ? c.decoder.decodeWithExtras(
                  bytes, ConfluentWireFormat.HEADER_SIZE, length, rescue, reportNewFields)
              : c.decoder.decode(bytes, ConfluentWireFormat.HEADER_SIZE, length);
      return r instanceof ParseResult.Failure f
          ? ParseResult.failure(ProtobufErrors.withSchemaId(c.id, f.error()))
          : r;
    }

    private Compiled compile(int id) {
      RegisteredSchema registered;
      try {
        registered = schemas.schemaById(id);
      } catch (UnknownSchemaException e) {
        return new Compiled(id, null, e.getMessage(), System.nanoTime());
      }
      if (!registered.type().equalsIgnoreCase("PROTOBUF")) {
        return new Compiled(id, null, ProtobufErrors.notProtobuf(id, registered.type()), 0);
      }
      try {
        ProtobufSchema compiled = ProtobufSchema.compile(registered);
        return new Compiled(
            id, new ProtobufRecordDecoder(compiled, message, declared, units), null, 0);
      } catch (IllegalArgumentException e) {
        // ProtobufSchemaException (the schema does not compile, lacks the message, or a field
        // cannot be
        // a column) is one; the record is quarantined, the next schema id may be fine.
        return new Compiled(id, null, ProtobufErrors.unusableSchema(id, name, e.getMessage()), 0);
      }
    }
  }
}
