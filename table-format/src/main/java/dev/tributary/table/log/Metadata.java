package dev.tributary.table.log;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code metaData} action: the table's id, schema, partition columns and properties.
 *
 * @param id a unique table id (UUID)
 * @param name user name of the table, or null
 * @param description or null
 * @param format the data file format; always {@code parquet} for tables we can read
 * @param schemaString the schema in Delta's JSON serialization (see {@link SchemaJson})
 * @param partitionColumns partition column names, in order
 * @param configuration table properties, e.g. {@code delta.logRetentionDuration}
 * @param createdTime epoch milliseconds of creation, or null
 */
public record Metadata(
    String id,
    String name,
    String description,
    Format format,
    String schemaString,
    List<String> partitionColumns,
    Map<String, String> configuration,
    Long createdTime)
    implements Action {
  public Metadata {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(schemaString, "schemaString");
    partitionColumns = List.copyOf(partitionColumns);
    configuration = Map.copyOf(configuration);
  }

  @Override
  public String kind() {
    return "metaData";
  }

  /**
   * The {@code format} of the data files.
   *
   * @param provider {@code parquet}
   * @param options format options, usually empty
   */
  public record Format(String provider, Map<String, String> options) {
    public Format {
      Objects.requireNonNull(provider, "provider");
      options = Map.copyOf(options);
    }

    /** Parquet without options: what we write. */
    public static Format parquet() {
      return new Format("parquet", Map.of());
    }
  }
}
