package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
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
import org.junit.jupiter.api.Test;

/**
 * Timestamps as other writers store them in a {@code timestamp} column: Spark's legacy INT96
 * ({@code outputTimestampType=INT96}), TIMESTAMP(MILLIS) and TIMESTAMP(NANOS), all read as the same
 * instants as our TIMESTAMP(MICROS).
 */
class ForeignTimestampsTest {
  private static final MessageType FILE =
      MessageTypeParser.parseMessageType(
          "message spark_schema { optional int96 a; optional int64 b (TIMESTAMP(MILLIS,true));"
              + " optional int64 c (TIMESTAMP(NANOS,true)); optional int64 d (TIMESTAMP(MICROS,true)); }");
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("a", PrimitiveType.TIMESTAMP),
          StructField.nullable("b", PrimitiveType.TIMESTAMP),
          StructField.nullable("c", PrimitiveType.TIMESTAMP),
          StructField.nullable("d", PrimitiveType.TIMESTAMP));

  private final InMemoryObjectStore store = new InMemoryObjectStore();

  @Test
  void int96MillisAndNanosReadAsInstants() throws IOException {
    List<Instant> instants =
        List.of(
            Instant.parse("2026-01-02T03:04:05.123456Z"),
            Instant.parse("1969-12-31T23:59:59.999999Z"),
            Instant.parse("1900-01-01T00:00:00Z"));
    SimpleGroupFactory rows = new SimpleGroupFactory(FILE);
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new StoreOutputFile(store, "f.parquet"))
            .withConf(new PlainParquetConfiguration())
            .withType(FILE)
            .build()) {
      for (Instant t : instants) {
        long micros = t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
        writer.write(
            rows.newGroup()
                .append("a", int96(t))
                .append("b", t.toEpochMilli())
                .append("c", t.getEpochSecond() * 1_000_000_000L + t.getNano())
                .append("d", micros));
      }
      writer.write(rows.newGroup());
    }
    DataFile file =
        new DataFile("f.parquet", Map.of(), 0, 0, new FileStats(-1, Map.of(), Map.of(), Map.of()));
    List<Object[]> read = DataFiles.readAll(store, file, SCHEMA);
    assertThat(read).hasSize(4);
    for (int i = 0; i < instants.size(); i++) {
      Instant t = instants.get(i);
      Instant millis = Instant.ofEpochMilli(t.toEpochMilli());
      assertThat(read.get(i)).as("row %d", i).containsExactly(t, millis, t, t);
    }
    assertThat(read.get(3)).containsOnlyNulls();
  }

  /** Julian day and nanoseconds of the day, little-endian, as Spark writes INT96. */
  private static Binary int96(Instant t) {
    long days = Math.floorDiv(t.getEpochSecond(), 86_400L);
    long nanosOfDay = Math.floorMod(t.getEpochSecond(), 86_400L) * 1_000_000_000L + t.getNano();
    ByteBuffer bytes = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
    bytes.putLong(nanosOfDay).putInt((int) (days + 2_440_588L));
    return Binary.fromConstantByteArray(bytes.array());
  }
}
