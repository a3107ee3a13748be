package dev.tributary.service.parse.protobuf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.EpochUnit;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Decodes the Protobuf records of one schema id into rows of the declared columns.
 *
 * <p>Input: a record value (or key) with the Confluent 5-byte header (magic byte, schema id)
 * already stripped, so it starts at the {@link MessageIndexes}, followed by the Protobuf payload.
 * The indexes pick the message type; when a {@code message} name is configured, any other type is a
 * failure. Output: as {@link JsonRecordParser#parse}, a {@link ParseResult.Success} whose row is
 * aligned with the declared struct and holds the same Java value classes (String, Integer, Long,
 * Double, Boolean, Instant truncated to microseconds, LocalDate, BigDecimal at the declared scale,
 * Object[] for nested structs), or a {@link ParseResult.Failure} naming the field and the problem.
 * {@link #decode} never throws for any input bytes.
 *
 * <p>All schema work happens in the constructor (for the configured message) or once per message
 * type the first time a record uses it (when no message is configured): per record there is a
 * varint read, a map lookup, the protobuf parse and the field reads.
 *
 * <p>Instances are immutable (apart from that cache) and thread-safe; build one per (schema id,
 * message, declared columns) and share it.
 */
public final class ProtobufRecordDecoder {
  private static final Pattern EPOCH_TIMESTAMP =
      Pattern.compile("timestamp\\s*\\(\\s*(seconds|millis|micros|nanos)\\s*\\)");

  private final ProtobufSchema schema;
  private final String message;
  private final StructType columns;
  private final Map<String, EpochUnit> units;
  private final JsonFormat.Printer printer;
  // Per message type: its converter, or the ProtobufSchemaException that refused it (reported
  // for each record of that type; only reachable when no message name is configured).
  private final Map<Descriptor, Object> converters = new ConcurrentHashMap<>();
  // Per message type: its undeclared top-level fields, for mode: add-columns.
  private final Map<Descriptor, NewFields> newFields = new ConcurrentHashMap<>();

  /**
   * A decoder for records of {@code schema} into {@code columns}.
   *
   * @param message the configured message's full name ({@code com.example.Order}), or null to
   *     accept whichever message the indexes name
   * @param epochUnits the epoch unit of timestamp columns read from integer fields, by dotted path
   *     (absent: milliseconds)
   * @throws ProtobufSchemaException if {@code message} is not in the schema, or one of its fields
   *     cannot be a column at all (repeated, map, bytes)
   */
  public ProtobufRecordDecoder(
      ProtobufSchema schema,
      String message,
      StructType columns,
      Map<String, EpochUnit> epochUnits) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.message = message;
    this.columns = Objects.requireNonNull(columns, "columns");
    this.units = Map.copyOf(epochUnits);
    this.printer =
        JsonFormat.printer()
            .usingTypeRegistry(
                JsonFormat.TypeRegistry.newBuilder().add(schema.file().getMessageTypes()).build())
            .preservingProtoFieldNames()
            .omittingInsignificantWhitespace();
    if (message != null) {
      Descriptor d =
          schema
              .message(message)
              .orElseThrow(
                  () ->
                      new ProtobufSchemaException(
                          ProtobufErrors.noSuchMessage(message, schema.topLevelNames())));
      converters.put(d, new MessageConverter("", d, columns, units));
    }
  }

  /**
   * A decoder for docs/PIPELINE_REFERENCE.md's {@code format.protobuf.schema} declarations (the
   * same syntax as {@code format.json.schema}: dotted paths for nested columns, {@code
   * timestamp(seconds|micros|nanos)} for epoch integers).
   *
   * @throws IllegalArgumentException naming the column, for an invalid declaration
   * @throws ProtobufSchemaException as the constructor
   */
  public static ProtobufRecordDecoder forColumns(
      ProtobufSchema schema, String message, LinkedHashMap<String, String> columnTypes) {
    if (columnTypes.isEmpty()) {
      // Checked here: the shared builder's message names format.json.schema.
      throw new IllegalArgumentException(ProtobufErrors.noColumns());
    }
    StructType columns = JsonRecordParser.schemaOf(columnTypes);
    Map<String, EpochUnit> units = new HashMap<>();
    columnTypes.forEach(
        (path, type) -> {
          Matcher m = EPOCH_TIMESTAMP.matcher(type.trim().toLowerCase(Locale.ROOT));
          if (m.matches()) {
            units.put(path, EpochUnit.valueOf(m.group(1).toUpperCase(Locale.ROOT)));
          }
        });
    return new ProtobufRecordDecoder(schema, message, columns, units);
  }

  /** The struct rows are aligned with. */
  public StructType columns() {
    return columns;
  }

  /** Decodes a whole header-stripped value; see the class comment. */
  public ParseResult decode(byte[] value) {
    return decode(value, 0, value == null ? 0 : value.length);
  }

  /** Decodes {@code length} bytes of {@code buffer} from {@code offset}; never throws. */
  public ParseResult decode(byte[] buffer, int offset, int length) {
    return decode(buffer, offset, length, false);
  }

  /**
   * As {@link #decode(byte[], int, int)}, with one more element at the end of the row: the
   * message's fields that no declared column reads, as JSON text (proto field names, protobuf's
   * JSON mapping: int64 as strings, enums by name, bytes as base64, Timestamps as RFC 3339), or
   * null when there are none. For {@code schema-evolution.rescue}'s {@code _rescued_data} column.
   */
  public ParseResult decodeWithRescued(byte[] buffer, int offset, int length) {
    return decode(buffer, offset, length, true);
  }

  /**
   * The schema-evolution form of {@link #decodeWithRescued} (docs/SCHEMA_EVOLUTION.md, "Protobuf"),
   * what a {@code RecordDecoder}'s {@code withEvolution(true, false)} calls per record: a row of
   * the declared columns only, whose {@link ParseResult.Success#extras()} holds the undeclared
   * fields as the {@code _rescued_data} object (the same JSON as {@link #decodeWithRescued}), null
   * when the message has none. Failures are {@link #decode(byte[], int, int)}'s, plus an undeclared
   * {@code Any} that cannot be rendered.
   */
  public ParseResult decodeWithExtras(byte[] buffer, int offset, int length) {
    return decodeWithExtras(buffer, offset, length, true, false);
  }

  /**
   * What {@code withEvolution(rescue, reportNewFields)} calls per record (docs/SCHEMA_EVOLUTION.md,
   * "Protobuf"): a row of the declared columns only, with {@link ParseResult.Success#extras()}
   * holding, with {@code reportNewFields}, the message's undeclared top-level fields as {@link
   * DecodedExtras.NewField}s ({@link NewFields}: their types and the presence rules), and with
   * {@code rescue} the rest of the undeclared fields (those inside declared structs, and values no
   * new column holds) as the {@code _rescued_data} object; null extras when there is none of
   * either. Failures are {@link #decode(byte[], int, int)}'s, plus an undeclared {@code Any} that
   * cannot be rendered and, without rescue, a new uint64 field above the long range.
   */
  public ParseResult decodeWithExtras(
      byte[] buffer, int offset, int length, boolean rescue, boolean reportNewFields) {
    Object located = locate(buffer, offset, length);
    if (located instanceof ParseResult.Failure f) {
      return f;
    }
    Located at = (Located) located;
    try {
      Message m = at.parse(buffer, offset, length);
      Object[] row = at.converter.toRow(m);
      NewFields.Found found = reportNewFields ? at.newFields().read(m, rescue, printer) : null;
      ObjectNode rescued = null;
      if (rescue) {
        Message rest = at.converter.undeclared(m);
        if (found != null && !rest.getAllFields().isEmpty()) {
          Message.Builder b = rest.toBuilder();
          found.taken().forEach(b::clearField);
          rest = b.buildPartial();
        }
        String text = rest.getAllFields().isEmpty() ? null : print(m, rest);
        rescued = text == null ? null : asObject(text);
      }
      if (found == null && rescued == null) {
        return ParseResult.success(row);
      }
      return new ParseResult.Success(
          row, new DecodedExtras(found == null ? List.of() : found.newFields(), rescued));
    } catch (ProtobufValueException | IOException | RuntimeException e) {
      return unreadable(at, e);
    }
  }

  private static ObjectNode asObject(String rescued) {
    try {
      return (ObjectNode) RESCUED_JSON.readTree(rescued);
    } catch (IOException | ClassCastException e) {
      // JsonFormat prints a message as one JSON object; anything else is a bug here, not bad input.
      throw new IllegalStateException(
          "JsonFormat printed something that is not a JSON object: " + rescued, e);
    }
  }

  /**
   * The record's message type, its converter and new-field reader, and where the message bytes
   * start.
   */
  private record Located(
      Descriptor type, MessageConverter converter, NewFields newFields, int indexLength) {
    Message parse(byte[] buffer, int offset, int length) throws IOException {
      return DynamicMessage.parseFrom(
          type, CodedInputStream.newInstance(buffer, offset + indexLength, length - indexLength));
    }
  }

  /**
   * The {@link Located} of a record, or the {@link ParseResult.Failure} saying why there is none.
   */
  private Object locate(byte[] buffer, int offset, int length) {
    if (buffer == null || length == 0) {
      return ParseResult.failure(ProtobufErrors.empty());
    }
    MessageIndexes.Read read;
    try {
      read = MessageIndexes.read(buffer, offset, length);
    } catch (IllegalArgumentException e) {
      return ParseResult.failure(e.getMessage());
    }
    Optional<Descriptor> type = schema.messageAt(read.indexes());
    if (type.isEmpty()) {
      return ParseResult.failure(
          ProtobufErrors.noMessageAt(read.indexes(), schema.topLevelNames()));
    }
    Descriptor d = type.get();
    if (message != null && !d.getFullName().equals(message)) {
      return ParseResult.failure(ProtobufErrors.wrongMessage(d.getFullName(), message));
    }
    Object converter = converters.computeIfAbsent(d, this::compile);
    if (converter instanceof ProtobufSchemaException refused) {
      return ParseResult.failure(refused.getMessage());
    }
    MessageConverter c = (MessageConverter) converter;
    return new Located(
        d, c, newFields.computeIfAbsent(d, t -> new NewFields(t, columns)), read.length());
  }

  private static final ObjectMapper RESCUED_JSON = new ObjectMapper();

  private ParseResult decode(byte[] buffer, int offset, int length, boolean rescue) {
    Object located = locate(buffer, offset, length);
    if (located instanceof ParseResult.Failure f) {
      return f;
    }
    Located at = (Located) located;
    try {
      Message m = at.parse(buffer, offset, length);
      Object[] row = at.converter.toRow(m);
      if (!rescue) {
        return ParseResult.success(row);
      }
      Object[] withRescued = Arrays.copyOf(row, row.length + 1);
      withRescued[row.length] = rescued(at.converter, m);
      return ParseResult.success(withRescued);
    } catch (ProtobufValueException | IOException | RuntimeException e) {
      return unreadable(at, e);
    }
  }

  /** Why a located record's message does not parse or does not convert to the declared columns. */
  private static ParseResult unreadable(Located at, Exception e) {
    if (e instanceof ProtobufValueException) {
      return ParseResult.failure(e.getMessage());
    }
    if (e instanceof InvalidProtocolBufferException) {
      return ParseResult.failure(ProtobufErrors.malformed(at.type.getFullName(), e.getMessage()));
    }
    // The bytes are untrusted: whatever protobuf-java throws on them must quarantine this
    // record, never stop the pipeline.
    return ParseResult.failure(ProtobufErrors.unreadable(at.type.getFullName(), e));
  }

  private Object compile(Descriptor d) {
    try {
      return new MessageConverter("", d, columns, units);
    } catch (ProtobufSchemaException e) {
      return e;
    }
  }

  private String rescued(MessageConverter c, Message m) throws ProtobufValueException {
    Message rest = c.undeclared(m);
    return rest.getAllFields().isEmpty() ? null : print(m, rest);
  }

  private String print(Message m, Message rest) throws ProtobufValueException {
    try {
      return printer.print(rest);
    } catch (InvalidProtocolBufferException e) {
      // An Any packing a type the schema does not know has no JSON form.
      throw new ProtobufValueException(
          ProtobufErrors.unrenderable(m.getDescriptorForType().getFullName(), e.getMessage()));
    }
  }
}
