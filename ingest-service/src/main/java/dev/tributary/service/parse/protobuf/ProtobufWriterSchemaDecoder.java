package dev.tributary.service.parse.protobuf;

import com.google.protobuf.Descriptors.Descriptor;
import dev.tributary.service.parse.FramedDecoding;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.SchemaIdCache;
import dev.tributary.service.parse.WriterRow;
import dev.tributary.service.parse.WriterRowDecoder;
import dev.tributary.service.parse.avro.SchemaSource;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.StructType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes Protobuf records into every field of their writer message ({@code
 * format.protobuf.columns: all}): per schema id and message (the configured {@code message}, else
 * the one the record's message indexes name), once, the message's fields are mapped to columns
 * ({@link WriterMessageColumns}) and a {@link ProtobufRecordDecoder} of exactly those columns is
 * compiled. A row is one {@link WriterRow} (no column every record has: Protobuf has no envelope);
 * with {@link #withRecordKeys} the record key's message field names ride in it, and a key that is
 * null or does not decode is a failure naming it.
 *
 * <p>Thread-safe.
 */
public final class ProtobufWriterSchemaDecoder implements WriterRowDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(ProtobufWriterSchemaDecoder.class);
  private static final StructType NO_FIXED_COLUMNS = new StructType(List.of());

  private final String pipelineId;
  private final SchemaSource schemas;
  private final String message;
  private final long maxRecordBytes;
  private final boolean recordKeys;
  private final SchemaIdCache<Compiled> byId;
  private final Map<String, Bound> bound;

  /**
   * @param message the value's message full name; empty: the one each record's indexes name
   */
  public ProtobufWriterSchemaDecoder(
      String pipelineId, SchemaSource schemas, String message, long maxRecordBytes) {
    this(pipelineId, schemas, message, maxRecordBytes, false, null, new ConcurrentHashMap<>());
  }

  private ProtobufWriterSchemaDecoder(
      String pipelineId,
      SchemaSource schemas,
      String message,
      long maxRecordBytes,
      boolean recordKeys,
      SchemaIdCache<Compiled> byId,
      Map<String, Bound> bound) {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.schemas = Objects.requireNonNull(schemas, "schemas");
    this.message = Objects.requireNonNull(message, "message");
    this.maxRecordBytes = FramedDecoding.checkedMaxRecordBytes(maxRecordBytes);
    this.recordKeys = recordKeys;
    this.byId = byId != null ? byId : new SchemaIdCache<>(this::compile);
    this.bound = bound;
  }

  @Override
  public ProtobufWriterSchemaDecoder withRecordKeys() {
    return new ProtobufWriterSchemaDecoder(
        pipelineId, schemas, message, maxRecordBytes, true, byId, bound);
  }

  @Override
  public StructType schema() {
    return NO_FIXED_COLUMNS;
  }

  @Override
  public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
    ParseResult refused = FramedDecoding.precheck(topic, partition, offset, value, maxRecordBytes);
    if (refused != null) {
      return refused;
    }
    ParseResult row = read(value, message, "value");
    if (!(row instanceof ParseResult.Success success)) {
      return FramedDecoding.failure(
          topic, partition, offset, "value", ((ParseResult.Failure) row).error());
    }
    if (!recordKeys) {
      return success;
    }
    ParseResult keyRow = decodeKey(topic, partition, offset, key, List.of());
    if (!(keyRow instanceof ParseResult.Success keySuccess)) {
      return keyRow;
    }
    WriterRow w = WriterRow.of(success.row());
    return ParseResult.success(
        new Object[] {
          new WriterRow(
              w.schema(),
              w.values(),
              WriterRow.of(keySuccess.row()).schema().fieldNames(),
              w.origin())
        });
  }

  /** A tombstone's (or any record's) key: its message's fields, all of them its key. */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] key, List<String> keyColumns) {
    if (key == null) {
      return FramedDecoding.failure(topic, partition, offset, "key", ProtobufErrors.noRecordKey());
    }
    ParseResult row = read(key, "", "key");
    if (!(row instanceof ParseResult.Success success)) {
      return FramedDecoding.failure(
          topic, partition, offset, "key", ((ParseResult.Failure) row).error());
    }
    WriterRow w = WriterRow.of(success.row());
    return ParseResult.success(
        new Object[] {new WriterRow(w.schema(), w.values(), w.schema().fieldNames(), w.origin())});
  }

  /** The record's part as a row of one writer row, or a failure. */
  private ParseResult read(byte[] bytes, String configured, String part) {
    String header = ConfluentWireFormat.headerProblem(bytes, 0, bytes.length);
    if (header != null) {
      return ParseResult.failure(header);
    }
    Compiled c = byId.get(ConfluentWireFormat.schemaId(bytes, 0));
    if (!c.usable()) {
      return ParseResult.failure(c.problem);
    }
    int length = bytes.length - ConfluentWireFormat.HEADER_SIZE;
    String name = configured;
    if (name.isEmpty()) {
      Descriptor d;
      try {
        MessageIndexes.Read indexes =
            MessageIndexes.read(bytes, ConfluentWireFormat.HEADER_SIZE, length);
        d = c.schema.messageAt(indexes.indexes()).orElse(null);
      } catch (IllegalArgumentException e) {
        return ParseResult.failure(ProtobufErrors.withSchemaId(c.id, e.getMessage()));
      }
      if (d == null) {
        return ParseResult.failure(
            ProtobufErrors.withSchemaId(c.id, "the message indexes name no message of the schema"));
      }
      name = d.getFullName();
    }
    Bound b;
    try {
      b = bind(c, name, part);
    } catch (IllegalArgumentException e) {
      return ParseResult.failure(ProtobufErrors.unusableSchema(c.id, part, e.getMessage()));
    }
    ParseResult r = b.decoder.decode(bytes, ConfluentWireFormat.HEADER_SIZE, length);
    if (!(r instanceof ParseResult.Success success)) {
      return r instanceof ParseResult.Failure f
          ? ParseResult.failure(ProtobufErrors.withSchemaId(c.id, f.error()))
          : r;
    }
    return ParseResult.success(
        new Object[] {
          new WriterRow(b.columns, success.row(), List.of(), "writer schema id " + c.id)
        });
  }

  private Bound bind(Compiled c, String name, String part) {
    return bound.computeIfAbsent(
        c.id + "/" + name,
        k -> {
          Descriptor d =
              c.schema
                  .message(name)
                  .orElseThrow(
                      () ->
                          new ProtobufSchemaException(
                              ProtobufErrors.noSuchMessage(name, c.schema.topLevelNames())));
          WriterMessageColumns columns = WriterMessageColumns.of(d);
          if (!columns.skipped().isEmpty()) {
            LOG.warn(
                "Pipeline {}: message {} of schema id {} ({}) has fields without a column"
                    + " (repeated, maps, bytes): {}; columns: all leaves them out",
                pipelineId,
                name,
                c.id,
                part,
                columns.skipped());
          }
          LinkedHashMap<String, String> types = columns.columns();
          StructType struct = JsonRecordParser.schemaOf(types);
          return new Bound(
              new ProtobufRecordDecoder(
                  c.schema, name, struct, JsonRecordParser.epochUnitsOf(types)),
              struct);
        });
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
      return new Compiled(id, ProtobufSchema.compile(registered), null, 0);
    } catch (IllegalArgumentException e) {
      return new Compiled(id, null, ProtobufErrors.unusableSchema(id, "value", e.getMessage()), 0);
    }
  }

  /** A compiled schema id, or why its records are quarantined. */
  private record Compiled(int id, ProtobufSchema schema, String problem, long failedAt)
      implements SchemaIdCache.Entry {
    @Override
    public boolean usable() {
      return schema != null;
    }
  }

  /** One message of a schema id bound to its columns. */
  private record Bound(ProtobufRecordDecoder decoder, StructType columns) {}
}
