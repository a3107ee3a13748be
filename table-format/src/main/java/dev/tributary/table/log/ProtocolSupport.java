package dev.tributary.table.log;

import dev.tributary.table.TableErrors;
import dev.tributary.table.TypeWidening;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.ColumnMappingMode;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.MapType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.TypeChange;
import dev.tributary.table.types.VariantType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which protocols we read and write. We read reader versions 1..3 as long as the table uses no
 * reader feature we do not implement. We implement {@code typeWidening} (a data file that stores a
 * column in a narrower type than the table's is converted on read, see the row converters), {@code
 * deletionVectors} (every reader skips the rows a file's deletion vector names) and {@code
 * columnMapping} (reader 2, or the feature: columns, partition values and statistics are found by
 * physical name or field id, see {@link ColumnMappingMode}) and {@code timestampNtz} (the column
 * type, read and written). We write reader 1 / writer 2 tables, and tables whose writer features we
 * honour: {@code appendOnly} (we refuse data-changing removes on such tables), {@code typeWidening}
 * (we record every change in {@code delta.typeChanges} and write the wide type) and {@code
 * invariants}. The row rules ({@link #ROW_RULE_FEATURES}: invariants, CHECK constraints, generated
 * and identity columns) are honoured only by a writer that evaluates them on every row it appends
 * (the service's stateless append sink, see {@code dev.tributary.table.TableRules}): such a writer
 * names them in {@link #checkWritable(String, long, Protocol, Metadata, Set)}; any other writer
 * refuses a table that uses one.
 */
public final class ProtocolSupport {
  /** Reader features (reader version 3) we implement. */
  public static final Set<String> READER_FEATURES =
      Set.of(
          "vacuumProtocolCheck",
          "typeWidening",
          "typeWidening-preview",
          "deletionVectors",
          "columnMapping",
          "v2Checkpoint",
          // timestamp_ntz columns are read as LocalDateTime (INT64 TIMESTAMP, not adjusted to UTC)
          "timestampNtz",
          // variant columns are read as the JSON text Spark's to_json gives (VariantType)
          "variantType",
          "variantType-preview");

  /** Writer features (writer version 7) we honour when we commit. */
  public static final Set<String> WRITER_FEATURES =
      Set.of(
          "appendOnly",
          "invariants",
          "vacuumProtocolCheck",
          "typeWidening",
          // Delta 3.x's name: the same writer rules (write the column's current type, keep
          // delta.typeChanges, tableVersion included)
          "typeWidening-preview",
          "deletionVectors",
          // we write classic V1 checkpoints, which the protocol allows on such tables too
          "v2Checkpoint",
          // data files, partition values and statistics by physical name, ids in the files, new
          // columns get a physical name and an id
          "columnMapping",
          // every domain is kept in our checkpoints; we change none
          "domainMetadata",
          // appends are unclustered files with statistics; the clustering domain is kept
          "clustering",
          // new files get fresh row ids after the high-water mark, which the commit moves;
          // compaction and merge, which would have to keep row ids, refuse such tables
          "rowTracking",
          // our commitInfo comes first and carries a timestamp later than the previous commit's
          "inCommitTimestamp",
          // timestamp_ntz columns are written as Spark writes them
          "timestampNtz");

  /**
   * Writer features that constrain the rows of an append, honoured only by a writer that enforces
   * them row by row ({@code dev.tributary.table.TableRules}): column invariants, CHECK constraints,
   * generated columns and identity columns.
   */
  public static final Set<String> ROW_RULE_FEATURES =
      Set.of("invariants", "checkConstraints", "generatedColumns", "identityColumns");

  /**
   * Features Tributary itself puts on tables it writes: {@code typeWidening} when a declared column
   * widens, {@code timestampNtz} when a table is created with a {@code timestamp_ntz} column,
   * {@code deletionVectors} for {@code merge-strategy: deletion-vectors}, with the {@code
   * appendOnly} and {@code invariants} that the move from writer 2 to writer 7 names.
   */
  public static final Set<String> CREATED_FEATURES =
      Set.of("typeWidening", "appendOnly", "invariants", "timestampNtz", "deletionVectors");

  /** The reader-writer feature a table with a {@code timestamp_ntz} column must support. */
  public static final String TIMESTAMP_NTZ = "timestampNtz";

  /**
   * The reader-writer feature of deletion vectors: a table must support it before any {@code add}
   * carries a {@code deletionVector}.
   */
  public static final String DELETION_VECTORS = "deletionVectors";

  /**
   * The table property that lets writers write new deletion vectors (PROTOCOL.md: "Writers must
   * only write new Deletion Vectors when this property is set to true"); readers apply existing
   * ones whatever it says.
   */
  public static final String ENABLE_DELETION_VECTORS = "delta.enableDeletionVectors";

  /**
   * The protocol a table created with {@code properties} starts with: reader 1 / writer 2, plus the
   * reader-writer features its schema or properties need ({@value #TIMESTAMP_NTZ} for a {@code
   * timestamp_ntz} column, {@value #DELETION_VECTORS} when {@value #ENABLE_DELETION_VECTORS} is
   * true, as Delta does on {@code CREATE TABLE}).
   */
  public static Protocol createdProtocol(StructType schema, Map<String, String> properties) {
    Protocol protocol = Protocol.ours();
    if (needsTimestampNtz(schema)) {
      protocol = protocol.withReaderWriterFeature(TIMESTAMP_NTZ);
    }
    if (deletionVectorsEnabled(properties)) {
      protocol = protocol.withReaderWriterFeature(DELETION_VECTORS);
    }
    return protocol;
  }

  /** True if {@value #ENABLE_DELETION_VECTORS} is {@code true} in the properties. */
  public static boolean deletionVectorsEnabled(Map<String, String> properties) {
    return Boolean.parseBoolean(properties.getOrDefault(ENABLE_DELETION_VECTORS, "false"));
  }

  /**
   * True if a column of the schema, or a field nested in one (structs, arrays, maps), is a {@code
   * timestamp_ntz}: the table then needs the {@value #TIMESTAMP_NTZ} feature.
   */
  public static boolean needsTimestampNtz(DataType type) {
    if (type == PrimitiveType.TIMESTAMP_NTZ) {
      return true;
    }
    if (type instanceof StructType struct) {
      return struct.fields().stream().anyMatch(f -> needsTimestampNtz(f.type()));
    }
    if (type instanceof ArrayType array) {
      return needsTimestampNtz(array.elementType());
    }
    return type instanceof MapType map
        && (needsTimestampNtz(map.keyType()) || needsTimestampNtz(map.valueType()));
  }

  private ProtocolSupport() {}

  /** Throws a {@link dev.tributary.table.TableException} unless we can read this table. */
  public static void checkReadable(String location, long version, Protocol p, Metadata m) {
    int reader = p.minReaderVersion();
    if (reader < 1 || reader > 3) {
      throw TableErrors.unsupportedReader(location, version, reader, List.of());
    }
    if (supportsColumnMapping(p)) {
      try {
        ColumnMappingMode.of(m.configuration());
      } catch (IllegalArgumentException e) {
        throw TableErrors.unsupported(
            location, "the table at version " + version + " (" + e.getMessage() + ")", "");
      }
    }
    if (reader == 3) {
      Set<String> unsupported = new TreeSet<>(p.readerFeatures());
      unsupported.removeAll(READER_FEATURES);
      if (!unsupported.isEmpty()) {
        throw TableErrors.unsupportedReader(location, version, reader, unsupported);
      }
    }
    if (!m.format().provider().equalsIgnoreCase("parquet")) {
      throw TableErrors.unsupported(
          location,
          "data file format '" + m.format().provider() + "'",
          "Only parquet tables can be read.");
    }
    List<String> unreadable = unreadableTypeChanges(m);
    if (!unreadable.isEmpty()) {
      throw TableErrors.unreadableTypeChanges(location, version, unreadable);
    }
  }

  /**
   * The recorded type changes ({@code delta.typeChanges}) a reader cannot apply to older files
   * ({@link TypeWidening#readable}), each as {@code <column path> from <type> to <type>}.
   */
  static List<String> unreadableTypeChanges(Metadata m) {
    if (!m.schemaString().contains(SchemaJson.TYPE_CHANGES)) {
      return List.of(); // nothing recorded: no need to parse the schema
    }
    StructType schema;
    try {
      schema = SchemaJson.parse(m.schemaString());
    } catch (IllegalArgumentException e) {
      return List.of(); // the snapshot refuses the schema itself, with its own message
    }
    List<String> out = new ArrayList<>();
    unreadableTypeChanges(schema, "", out);
    return out;
  }

  private static void unreadableTypeChanges(DataType type, String prefix, List<String> out) {
    if (type instanceof StructType struct) {
      for (StructField f : struct.fields()) {
        String path = prefix + f.name();
        for (TypeChange c : f.typeChanges()) {
          if (!TypeWidening.readable(c.fromType(), c.toType())) {
            out.add(
                c.fieldPath().map(p -> path + "." + p).orElse(path)
                    + " from "
                    + c.fromType().deltaName()
                    + " to "
                    + c.toType().deltaName());
          }
        }
        unreadableTypeChanges(f.type(), path + ".", out);
      }
    } else if (type instanceof ArrayType array) {
      unreadableTypeChanges(array.elementType(), prefix + "element.", out);
    } else if (type instanceof MapType map) {
      unreadableTypeChanges(map.keyType(), prefix + "key.", out);
      unreadableTypeChanges(map.valueType(), prefix + "value.", out);
    }
  }

  /**
   * Throws a {@link dev.tributary.table.TableException} unless we may commit to this table: every
   * writer feature its protocol supports (named at writer 7, implied by writers 2..6) is one we
   * honour ({@link #WRITER_FEATURES}), or one that is not active on the table ({@link #inactive}):
   * a feature supported but unused asks nothing of an appender.
   */
  public static void checkWritable(String location, long version, Protocol p, Metadata m) {
    checkWritable(location, version, p, m, Set.of());
  }

  /**
   * {@link #checkWritable(String, long, Protocol, Metadata)} for a writer that enforces the row
   * rules named in {@code enforced} (a subset of {@link #ROW_RULE_FEATURES}) on every row it
   * appends: those are honoured even when the table uses them.
   */
  public static void checkWritable(
      String location, long version, Protocol p, Metadata m, Set<String> enforced) {
    checkReadable(location, version, p, m);
    List<String> variants = variantColumns(m);
    if (!variants.isEmpty()) {
      throw TableErrors.variantReadOnly(location, version, variants);
    }
    int writer = p.minWriterVersion();
    if (writer < 1 || writer > 7) {
      throw TableErrors.unsupportedWriter(location, version, writer, List.of());
    }
    Set<String> features = writer == 7 ? p.writerFeatures() : impliedWriterFeatures(writer);
    Set<String> unsupported = new TreeSet<>();
    for (String feature : features) {
      if (!WRITER_FEATURES.contains(feature)
          && !inactive(feature, m)
          && !enforced.contains(feature)) {
        unsupported.add(feature);
      }
    }
    if (features.contains("invariants")
        && m.schemaString().contains("delta.invariants")
        && !enforced.contains("invariants")) {
      unsupported.add("invariants");
    }
    if (!unsupported.isEmpty()) {
      throw TableErrors.unsupportedWriter(location, version, writer, unsupported);
    }
  }

  /** The top-level columns that are, or hold, a variant: Tributary writes no variant. */
  static List<String> variantColumns(Metadata m) {
    if (!m.schemaString().contains("\"variant\"")) {
      return List.of(); // the type's name appears nowhere: no need to parse the schema
    }
    return SchemaJson.parse(m.schemaString()).fields().stream()
        .filter(f -> VariantType.contains(f.type()))
        .map(StructField::name)
        .toList();
  }

  /**
   * The writer features a legacy writer version implies (PROTOCOL.md, "Writer Version
   * Requirements").
   */
  static Set<String> impliedWriterFeatures(int writerVersion) {
    Set<String> out = new TreeSet<>();
    if (writerVersion >= 2) {
      out.addAll(List.of("appendOnly", "invariants"));
    }
    if (writerVersion >= 3) {
      out.add("checkConstraints");
    }
    if (writerVersion >= 4) {
      out.addAll(List.of("changeDataFeed", "generatedColumns"));
    }
    if (writerVersion >= 5) {
      out.add("columnMapping");
    }
    if (writerVersion >= 6) {
      out.add("identityColumns");
    }
    return out;
  }

  /**
   * Writer features that ask nothing of an append while the table does not use them, with the test
   * of use: CHECK constraints ({@code delta.constraints.*} properties), the change data feed
   * ({@code delta.enableChangeDataFeed}), generated and identity columns (their field metadata),
   * and column defaults (an appender that writes every column never needs one).
   */
  static boolean inactive(String feature, Metadata m) {
    return switch (feature) {
      case "checkConstraints" ->
          m.configuration().keySet().stream().noneMatch(k -> k.startsWith("delta.constraints."));
      case "changeDataFeed" ->
          !Boolean.parseBoolean(
              m.configuration().getOrDefault("delta.enableChangeDataFeed", "false"));
      case "generatedColumns" -> !m.schemaString().contains("delta.generationExpression");
      case "identityColumns" -> !m.schemaString().contains("delta.identity.");
      case "allowColumnDefaults" -> true;
      default -> false;
    };
  }

  /**
   * The column mapping mode readers honour: the table property, if the protocol supports column
   * mapping (reader 2, or reader 3 with the {@code columnMapping} feature), else {@link
   * ColumnMappingMode#NONE}, as PROTOCOL.md says.
   */
  public static ColumnMappingMode columnMapping(Protocol p, Metadata m) {
    return supportsColumnMapping(p)
        ? ColumnMappingMode.of(m.configuration())
        : ColumnMappingMode.NONE;
  }

  private static boolean supportsColumnMapping(Protocol p) {
    return p.minReaderVersion() == 2
        || (p.minReaderVersion() == 3 && p.readerFeatures().contains("columnMapping"));
  }

  /** True if the table forbids removing rows ({@code delta.appendOnly=true}). */
  public static boolean appendOnly(Metadata m) {
    return Boolean.parseBoolean(m.configuration().getOrDefault("delta.appendOnly", "false"));
  }
}
