package dev.tributary.service.parse.avro;

import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.EpochUnit;
import dev.tributary.service.parse.FramedDecoding;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.SchemaIdCache;
import dev.tributary.service.parse.WireErrors;
import dev.tributary.service.registry.ConfluentWireFormat;
import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * Decodes Avro records in the Confluent wire format ({@link ConfluentWireFormat}) into rows of the
 * declared columns: the value's columns, then the key's when {@code format.avro.key} is declared.
 *
 * <p>Per writer schema id, once: the schema is fetched from the {@link SchemaSource} (the registry;
 * its references parsed first), projected on the declared columns and compiled ({@link
 * WriterProjection}); the outcome is cached, so the hot path does no schema work. Per record: the
 * header is checked, the body decoded with the compiled reader, the values converted.
 *
 * <p>Quarantined (a {@link ParseResult.Failure} whose message starts {@code topic/partition offset
 * N: value:} or {@code key:}): a null value, a value above max-record-size, a header that is not
 * the wire format (too short, magic byte not 0), an id the registry does not know (404), a schema
 * that is not Avro or does not parse, bytes that do not decode with the writer schema (or are
 * followed by more), and a value that does not fit its declared column (a writer type that cannot
 * become the declared type, a decimal that does not fit, a time outside 0001-9999). A null key
 * leaves the key columns null. A registry that is down is not the record's fault: the {@link
 * dev.tributary.service.parse.DecoderUnavailableException} propagates and fails the batch.
 *
 * <p>Thread-safe.
 */
public final class AvroRecordDecoder implements RecordDecoder {
  private final SchemaSource schemas;
  private final Part value;
  private final Part key;
  private final StructType schema;
  private final long maxRecordBytes;
  // Schema evolution (docs/SCHEMA_EVOLUTION.md); both false: the plain projected path, unchanged.
  private final boolean rescue;
  private final boolean reportNewFields;

  /**
   * A decoder of the declared columns ({@code column: type}, as {@code format.avro.schema}).
   *
   * @param keyColumns the key's columns; empty: the key is not decoded
   * @throws IllegalArgumentException naming the column, for an unknown type or a conflict
   */
  public AvroRecordDecoder(
      SchemaSource schemas,
      LinkedHashMap<String, String> valueColumns,
      LinkedHashMap<String, String> keyColumns,
      long maxRecordBytes) {
    this.schemas = Objects.requireNonNull(schemas, "schemas");
    this.maxRecordBytes = FramedDecoding.checkedMaxRecordBytes(maxRecordBytes);
    this.value =
        new Part(
            "value",
            JsonRecordParser.schemaOf(valueColumns),
            JsonRecordParser.epochUnitsOf(valueColumns));
    this.key =
        keyColumns.isEmpty()
            ? null
            : new Part(
                "key",
                JsonRecordParser.schemaOf(keyColumns),
                JsonRecordParser.epochUnitsOf(keyColumns));
    this.schema = FramedDecoding.rowSchema(value.declared, key == null ? null : key.declared);
    this.rescue = false;
    this.reportNewFields = false;
  }

  private AvroRecordDecoder(AvroRecordDecoder base, boolean rescue, boolean reportNewFields) {
    this.schemas = base.schemas;
    this.value = base.value;
    this.key = base.key;
    this.schema = base.schema;
    this.maxRecordBytes = base.maxRecordBytes;
    this.rescue = rescue;
    this.reportNewFields = reportNewFields;
  }

  /**
   * This decoder with schema evolution (docs/SCHEMA_EVOLUTION.md, "Avro"): its successes carry
   * {@link ParseResult.Success#extras()} for the value. With {@code rescue}, the writer's fields
   * beyond the declared columns (top level and inside declared records) and values that do not fit
   * their declared column are kept there as JSON, the column left null; with {@code
   * reportNewFields}, the writer's undeclared top-level fields are reported with a column type
   * mapped from their Avro type ({@link DecodedExtras.NewField}) instead. Such a decoder reads each
   * record's whole writer datum (compiled once per schema id, next to the projection); both false:
   * this decoder, whose projected read skips the undeclared fields. The key is decoded as without
   * evolution.
   */
  @Override
  public AvroRecordDecoder withEvolution(boolean rescue, boolean reportNewFields) {
    return rescue || reportNewFields ? new AvroRecordDecoder(this, rescue, reportNewFields) : this;
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
    Object[] valueRow;
    DecodedExtras extras = null;
    try {
      if (rescue || reportNewFields) {
        AvroEvolution.Read read = value.readEvolving(valueBytes, rescue, reportNewFields);
        valueRow = read.row();
        extras = read.extras();
      } else {
        valueRow = value.read(valueBytes);
      }
    } catch (AvroMisfit e) {
      return FramedDecoding.failure(topic, partition, offset, "value", e.getMessage());
    }
    if (key == null) {
      return new ParseResult.Success(valueRow, extras);
    }
    Object[] keyRow;
    try {
      keyRow = keyBytes == null ? new Object[key.declared.size()] : key.read(keyBytes);
    } catch (AvroMisfit e) {
      return FramedDecoding.failure(topic, partition, offset, "key", e.getMessage());
    }
    return new ParseResult.Success(FramedDecoding.join(valueRow, keyRow), extras);
  }

  /** Decodes a tombstone's key into the key's declared columns; the value's columns are null. */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] keyBytes, List<String> keyColumns) {
    if (key == null) {
      return ParseResult.failure(WireErrors.tombstone() + "; " + WireErrors.keyNotDeclared("avro"));
    }
    if (keyBytes == null) {
      return ParseResult.failure(WireErrors.tombstoneWithoutKey());
    }
    try {
      return ParseResult.success(
          FramedDecoding.join(new Object[value.declared.size()], key.read(keyBytes)));
    } catch (AvroMisfit e) {
      return FramedDecoding.failure(topic, partition, offset, "key", e.getMessage());
    }
  }

  /**
   * The fields of writer schema {@code id} that the value's declared columns do not read (dotted
   * paths), compiling it if needed: what a rescue column would keep. Empty for an id that cannot be
   * compiled.
   */
  public List<String> undeclaredValueFields(int id) {
    Compiled c = value.byId.get(id);
    return c.projection == null ? List.of() : c.projection.undeclaredFields();
  }

  /** A compiled writer schema, or why its records are quarantined. */
  private record Compiled(
      int id, Schema writer, WriterProjection projection, String problem, long failedAt)
      implements SchemaIdCache.Entry {
    @Override
    public boolean usable() {
      return projection != null;
    }
  }

  /** The value or the key: its declared struct and its compiled writer schemas. */
  private final class Part {
    private final String name;
    private final StructType declared;
    private final Map<String, EpochUnit> units;
    private final SchemaIdCache<Compiled> byId = new SchemaIdCache<>(this::compile);
    // Only filled when schema evolution is on: the whole-datum readers, by schema id.
    private final ConcurrentHashMap<Integer, AvroEvolution> evolving = new ConcurrentHashMap<>();

    Part(String name, StructType declared, Map<String, EpochUnit> units) {
      this.name = name;
      this.declared = declared;
      this.units = units;
    }

    Object[] read(byte[] bytes) {
      Compiled c = usable(bytes);
      try {
        return c.projection.read(
            bytes,
            ConfluentWireFormat.HEADER_SIZE,
            bytes.length - ConfluentWireFormat.HEADER_SIZE,
            declared.size());
      } catch (AvroMisfit e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        // Untrusted bytes: whatever Avro throws on them (EOF, negative lengths, limits, a union
        // index out of range) quarantines this record, never stops the pipeline.
        throw new AvroMisfit(AvroErrors.undecodable(c.id, e));
      }
    }

    /** As {@link #read}, reading the whole writer datum for schema evolution. */
    AvroEvolution.Read readEvolving(byte[] bytes, boolean rescue, boolean reportNewFields) {
      Compiled c = usable(bytes);
      if (c.projection.wholeValue()) {
        return new AvroEvolution.Read(
            read(bytes), null); // not a record: nothing beyond the one column
      }
      AvroEvolution evolution =
          evolving.computeIfAbsent(c.id, id -> new AvroEvolution(id, c.writer, declared, units));
      try {
        return evolution.read(
            bytes,
            ConfluentWireFormat.HEADER_SIZE,
            bytes.length - ConfluentWireFormat.HEADER_SIZE,
            declared.size(),
            rescue,
            reportNewFields);
      } catch (AvroMisfit e) {
        throw e;
      } catch (IOException | RuntimeException e) {
        throw new AvroMisfit(AvroErrors.undecodable(c.id, e));
      }
    }

    /**
     * The compiled writer schema of {@code bytes}, checking the header; throws the reason it is not
     * usable.
     */
    private Compiled usable(byte[] bytes) {
      String header = ConfluentWireFormat.headerProblem(bytes, 0, bytes.length);
      if (header != null) {
        throw new AvroMisfit(header);
      }
      Compiled c = byId.get(ConfluentWireFormat.schemaId(bytes, 0));
      if (c.projection == null) {
        throw new AvroMisfit(c.problem);
      }
      return c;
    }

    private Compiled compile(int id) {
      RegisteredSchema registered;
      try {
        registered = schemas.schemaById(id);
      } catch (UnknownSchemaException e) {
        return new Compiled(id, null, null, e.getMessage(), System.nanoTime());
      }
      if (!registered.type().equalsIgnoreCase("AVRO")) {
        return new Compiled(id, null, null, AvroErrors.notAvro(id, registered.type()), 0);
      }
      Schema writer;
      try {
        Schema.Parser parser = new Schema.Parser();
        for (RegisteredSchema.Reference ref : registered.references()) {
          parser.parse(ref.text());
        }
        writer = parser.parse(registered.text());
      } catch (RuntimeException e) {
        return new Compiled(id, null, null, AvroErrors.badSchema(id, e.getMessage()), 0);
      }
      try {
        return new Compiled(id, writer, new WriterProjection(id, writer, declared, units), null, 0);
      } catch (IllegalArgumentException e) {
        return new Compiled(id, null, null, e.getMessage(), 0);
      }
    }
  }
}
