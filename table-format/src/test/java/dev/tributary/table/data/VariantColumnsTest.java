package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.ArrayType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import dev.tributary.table.types.VariantType;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.types.variant.Variant;
import org.apache.spark.types.variant.VariantBuilder;
import org.junit.jupiter.api.Test;

/**
 * Variant columns in a Parquet file laid out as Spark 4 writes them (a group of the binaries {@code
 * value} and {@code metadata}; here with {@code metadata} first too), top-level and in a list, read
 * as their JSON text; a SQL NULL variant is null; a shredded or malformed one fails naming the file
 * and column.
 */
class VariantColumnsTest {
  private static final MessageType FILE =
      MessageTypeParser.parseMessageType(
          "message spark_schema { optional int64 id;"
              + " optional group v { required binary value; required binary metadata; }"
              + " optional group l (LIST) { repeated group list {"
              + "   optional group element { required binary metadata; required binary value; } } } }");
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("v", VariantType.VARIANT),
          StructField.nullable("l", new ArrayType(VariantType.VARIANT, true)));

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  @Test
  void variantsAreReadAsTheirJsonTextWhereverTheyAre() throws IOException {
    List<String> texts =
        List.of("{\"b\":[1,2.50,null],\"a\":\"x\"}", "12345678901234567890", "null", "-0.5e3");
    SimpleGroupFactory rows = new SimpleGroupFactory(FILE);
    try (ParquetWriter<Group> writer = writer("f.parquet", FILE)) {
      for (int i = 0; i < texts.size(); i++) {
        Variant v = VariantBuilder.parseJson(texts.get(i), false);
        Group row = rows.newGroup().append("id", (long) i);
        row.addGroup("v")
            .append("value", Binary.fromConstantByteArray(v.getValue()))
            .append("metadata", Binary.fromConstantByteArray(v.getMetadata()));
        Group element = row.addGroup("l").addGroup("list").addGroup("element");
        element
            .append("metadata", Binary.fromConstantByteArray(v.getMetadata()))
            .append("value", Binary.fromConstantByteArray(v.getValue()));
        writer.write(row);
      }
      writer.write(rows.newGroup().append("id", 9L));
    }
    List<Object[]> read = DataFiles.readAll(store, file("f.parquet"), SCHEMA);
    assertThat(read)
        .extracting(r -> r[1])
        .containsExactly(
            "{\"a\":\"x\",\"b\":[1,2.5,null]}", "12345678901234567890", "null", "-500.0", null);
    assertThat(read.get(0)[2]).isEqualTo(List.of("{\"a\":\"x\",\"b\":[1,2.5,null]}"));
    assertThat(read.get(4)[2]).isNull();
  }

  @Test
  void shreddedAndMalformedVariantsFailNamingTheFileAndColumn() throws IOException {
    MessageType shredded =
        MessageTypeParser.parseMessageType(
            "message spark_schema { optional group v { required binary metadata;"
                + " optional binary value; optional int64 typed_value; } }");
    try (ParquetWriter<Group> writer = writer("shredded.parquet", shredded)) {
      writer.write(new SimpleGroupFactory(shredded).newGroup());
    }
    StructType schema = StructType.of(StructField.nullable("v", VariantType.VARIANT));
    assertThatThrownBy(() -> DataFiles.readAll(store, file("shredded.parquet"), schema))
        .hasStackTraceContaining("Data file 'shredded.parquet' stores column 'v' as")
        .hasStackTraceContaining("cannot be read as variant");

    MessageType plain =
        MessageTypeParser.parseMessageType(
            "message spark_schema { optional group v { required binary value;"
                + " required binary metadata; } }");
    try (ParquetWriter<Group> writer = writer("bad.parquet", plain)) {
      Group row = new SimpleGroupFactory(plain).newGroup();
      row.addGroup("v")
          .append("value", Binary.fromConstantByteArray(new byte[] {0x18, 1}))
          .append("metadata", Binary.fromConstantByteArray(new byte[] {1, 0, 0}));
      writer.write(row);
    }
    assertThatThrownBy(() -> DataFiles.readAll(store, file("bad.parquet"), schema))
        .hasStackTraceContaining(
            "Data file 'bad.parquet' holds a variant in column 'v' that is not in the Variant"
                + " binary encoding (variant value of 2 bytes ends before byte 9 it refers to)");
  }

  private ParquetWriter<Group> writer(String key, MessageType type) throws IOException {
    return ExampleParquetWriter.builder(new StoreOutputFile(store, key))
        .withConf(new PlainParquetConfiguration())
        .withType(type)
        .build();
  }

  private static DataFile file(String key) {
    return new DataFile(key, Map.of(), 0, 0, new FileStats(-1, Map.of(), Map.of(), Map.of()));
  }
}
