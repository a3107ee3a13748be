package dev.tributary.service.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Parses JSON record values into rows of a declared schema, one token at a time (no tree).
 *
 * <p>Contract of {@link #parse}: it never throws for any input bytes; it returns a {@link
 * ParseResult.Success} whose row is aligned with {@link #schema()} (nested structs as nested {@code
 * Object[]}, Java value classes as documented in {@link dev.tributary.table.types.DataType}), or a
 * {@link ParseResult.Failure} whose message names the field path and the problem. Undeclared fields
 * are skipped, absent fields and explicit {@code null}s become null. The top level must be exactly
 * one JSON object. The coercion rules (which JSON values each declared type accepts) are listed in
 * docs/EXPRESSIONS.md.
 *
 * <p>Instances are immutable and thread-safe; build one per pipeline and share it.
 */
public final class JsonRecordParser implements RecordDecoder {
  /** Kafka's default maximum message size, a sensible default for {@code max-record-size}. */
  public static final long DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;

  // One factory for every parser: it owns the canonical field-name table and recycled buffers,
  // which is what makes creating a parser per record cheap.
  private static final JsonFactory FACTORY = new JsonFactory();

  private final StructType schema;
  private final StructReader root;
  private final long maxRecordBytes;
  // Schema evolution (docs/SCHEMA_EVOLUTION.md); both false: the plain path, unchanged.
  private final boolean rescue;
  private final boolean reportNewFields;

  /**
   * A parser for records of {@code schema}, rejecting records larger than {@code maxRecordBytes}.
   *
   * @throws IllegalArgumentException if the schema holds a type JSON cannot carry (binary) or the
   *     size limit is not positive
   */
  public JsonRecordParser(StructType schema, long maxRecordBytes) {
    this(schema, Map.of(), maxRecordBytes);
  }

  /**
   * As {@link #JsonRecordParser(StructType, long)}, reading numbers of the timestamp fields in
   * {@code epochUnits} (by dotted path) in that unit instead of milliseconds.
   */
  public JsonRecordParser(
      StructType schema, Map<String, EpochUnit> epochUnits, long maxRecordBytes) {
    this.schema = Objects.requireNonNull(schema, "schema");
    if (maxRecordBytes <= 0) {
      throw new IllegalArgumentException(
          "max-record-size must be positive, was " + maxRecordBytes + " bytes");
    }
    this.maxRecordBytes = maxRecordBytes;
    this.root = new StructReader("", schema, Map.copyOf(epochUnits));
    this.rescue = false;
    this.reportNewFields = false;
  }

  private JsonRecordParser(JsonRecordParser base, boolean rescue, boolean reportNewFields) {
    this.schema = base.schema;
    this.root = base.root;
    this.maxRecordBytes = base.maxRecordBytes;
    this.rescue = rescue;
    this.reportNewFields = reportNewFields;
  }

  /**
   * This parser with schema evolution (docs/SCHEMA_EVOLUTION.md): its successes carry {@link
   * ParseResult.Success#extras()}. With {@code rescue}, undeclared fields (top level and inside
   * declared structs) and values that do not fit their declared field are kept there as JSON and
   * the field is left null, instead of being skipped or failing the record; with {@code
   * reportNewFields}, undeclared top-level fields are reported with an inferred type ({@link
   * DecodedExtras.NewField}) instead of being rescued. Both false: this parser.
   */
  public JsonRecordParser withEvolution(boolean rescue, boolean reportNewFields) {
    return rescue || reportNewFields ? new JsonRecordParser(this, rescue, reportNewFields) : this;
  }

  /**
   * Builds the schema of docs/PIPELINE_REFERENCE.md's {@code format.json.schema}: keys are column
   * names or dotted paths ({@code customer.address.city}, a dot always means nesting), values are
   * type names ({@code string, int, long, double, boolean, timestamp,
   * timestamp(seconds|micros|nanos), date, decimal(p,s)}, case insensitive; the epoch unit only
   * matters to {@link #forColumns}). Columns and nested fields keep declaration order.
   *
   * @throws IllegalArgumentException naming the column, for an unknown type name, an empty path
   *     segment, or a path that is declared both as a scalar and as a struct
   */
  public static StructType schemaOf(LinkedHashMap<String, String> columnTypes) {
    return SchemaBuilder.schemaOf(columnTypes);
  }

  /**
   * A parser for docs/PIPELINE_REFERENCE.md's {@code format.json.schema} declarations (see {@link
   * #schemaOf}), with the epoch units of {@code timestamp(seconds|micros|nanos)} columns.
   *
   * @throws IllegalArgumentException naming the column, as {@link #schemaOf}
   */
  public static JsonRecordParser forColumns(
      LinkedHashMap<String, String> columnTypes, long maxRecordBytes) {
    return new JsonRecordParser(
        SchemaBuilder.schemaOf(columnTypes), SchemaBuilder.epochUnits(columnTypes), maxRecordBytes);
  }

  /** The schema rows are aligned with. */
  @Override
  public StructType schema() {
    return schema;
  }

  /** Parses the record's value (the key is not read); a null value (a tombstone) is a failure. */
  @Override
  public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
    return value == null ? ParseResult.failure(RecordErrors.tombstone()) : parse(value);
  }

  /**
   * Decodes a tombstone's key: a JSON object is read like a value (its fields that are declared
   * columns are set); a bare JSON value (a number, a string) or text that is not JSON becomes the
   * one key column, when there is one.
   */
  @Override
  public ParseResult decodeKey(
      String topic, int partition, long offset, byte[] key, List<String> keyColumns) {
    if (key == null) {
      return ParseResult.failure(RecordErrors.nullKey());
    }
    int start = 0;
    while (start < key.length && Character.isWhitespace(key[start])) {
      start++;
    }
    if (start < key.length && key[start] == '{') {
      return parse(key);
    }
    if (keyColumns.size() != 1 || schema.indexOf(keyColumns.get(0)) < 0) {
      return ParseResult.failure(RecordErrors.keyNotAnObject(keyColumns.size()));
    }
    String text = new String(key, StandardCharsets.UTF_8).strip();
    String value = isJsonScalar(text) ? text : quoted(text);
    return parse(
        ("{" + quoted(keyColumns.get(0)) + ":" + value + "}").getBytes(StandardCharsets.UTF_8));
  }

  private static boolean isJsonScalar(String text) {
    try (JsonParser p = FACTORY.createParser(text)) {
      JsonToken token = p.nextToken();
      return token != null && token.isScalarValue() && p.nextToken() == null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static String quoted(String text) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }

  /**
   * The epoch unit of every timestamp column declared with one other than milliseconds ({@code
   * timestamp(seconds)}, ...), by dotted path: other formats read plain numbers the same way.
   */
  public static Map<String, EpochUnit> epochUnitsOf(LinkedHashMap<String, String> columnTypes) {
    return SchemaBuilder.epochUnits(columnTypes);
  }

  /** Parses a whole record value; see the class comment for the contract. */
  public ParseResult parse(byte[] json) {
    return parse(json, 0, json == null ? 0 : json.length);
  }

  /** Parses {@code length} bytes of {@code buffer} from {@code offset}; never throws. */
  public ParseResult parse(byte[] buffer, int offset, int length) {
    if (buffer == null || length == 0) {
      return ParseResult.failure(RecordErrors.empty());
    }
    if (length > maxRecordBytes) {
      return ParseResult.failure(RecordErrors.tooLarge(length, maxRecordBytes));
    }
    try (JsonParser p = FACTORY.createParser(buffer, offset, length)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return ParseResult.failure(RecordErrors.blank());
      }
      if (first != JsonToken.START_OBJECT) {
        return ParseResult.failure(RecordErrors.notAnObject(p, first));
      }
      if (rescue || reportNewFields) {
        Rescue found = new Rescue(rescue, reportNewFields);
        Object[] row = root.readObject(p, found);
        if (p.nextToken() != null) {
          return ParseResult.failure(RecordErrors.trailing(p));
        }
        return new ParseResult.Success(row, found.extras());
      }
      Object[] row = root.readObject(p);
      if (p.nextToken() != null) {
        return ParseResult.failure(RecordErrors.trailing(p));
      }
      return ParseResult.success(row);
    } catch (BadRecordException e) {
      return ParseResult.failure(e.getMessage());
    } catch (JsonProcessingException e) {
      return ParseResult.failure(RecordErrors.malformed(e));
    } catch (IOException | RuntimeException e) {
      // The bytes are untrusted: whatever Jackson throws on them (encoding detection errors,
      // limits) must quarantine this record, never stop the pipeline.
      return ParseResult.failure(RecordErrors.unreadable(e));
    }
  }
}
