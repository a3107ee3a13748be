package dev.tributary.table.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.types.DataType;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PartitionValuesTest {

  @Test
  void serializesEveryTypeAsTheDeltaProtocolSays() {
    assertThat(DataFiles.serializePartitionValue("a b/c", PrimitiveType.STRING)).isEqualTo("a b/c");
    assertThat(DataFiles.serializePartitionValue(-12, PrimitiveType.INTEGER)).isEqualTo("-12");
    assertThat(DataFiles.serializePartitionValue(1L << 40, PrimitiveType.LONG))
        .isEqualTo("1099511627776");
    assertThat(DataFiles.serializePartitionValue(2.5, PrimitiveType.DOUBLE)).isEqualTo("2.5");
    assertThat(DataFiles.serializePartitionValue(true, PrimitiveType.BOOLEAN)).isEqualTo("true");
    assertThat(DataFiles.serializePartitionValue(false, PrimitiveType.BOOLEAN)).isEqualTo("false");
    assertThat(DataFiles.serializePartitionValue(LocalDate.of(2024, 3, 7), PrimitiveType.DATE))
        .isEqualTo("2024-03-07");
    assertThat(
            DataFiles.serializePartitionValue(
                Instant.parse("1970-01-01T00:00:00Z"), PrimitiveType.TIMESTAMP))
        .isEqualTo("1970-01-01T00:00:00.000000Z");
    assertThat(
            DataFiles.serializePartitionValue(
                Instant.parse("2024-05-01T12:34:56.000123Z"), PrimitiveType.TIMESTAMP))
        .isEqualTo("2024-05-01T12:34:56.000123Z");
    assertThat(
            DataFiles.serializePartitionValue(
                new BigDecimal("1E+3").setScale(2), new DecimalType(10, 2)))
        .isEqualTo("1000.00");
    assertThat(DataFiles.serializePartitionValue(null, PrimitiveType.LONG)).isNull();
    assertThat(DataFiles.serializePartitionValue("", PrimitiveType.STRING)).isNull();
  }

  @Test
  void parseIsTheInverseOfSerialize() {
    Map<DataType, List<Object>> samples = new HashMap<>();
    samples.put(PrimitiveType.STRING, List.of("x", "a=b/c d", "日本"));
    samples.put(PrimitiveType.INTEGER, List.of(0, Integer.MIN_VALUE, Integer.MAX_VALUE));
    samples.put(PrimitiveType.LONG, List.of(Long.MIN_VALUE, 7L));
    samples.put(PrimitiveType.DOUBLE, List.of(-0.25, 1e300, Double.MIN_VALUE));
    samples.put(PrimitiveType.BOOLEAN, List.of(true, false));
    samples.put(PrimitiveType.DATE, List.of(LocalDate.of(1, 1, 1), LocalDate.of(2024, 2, 29)));
    samples.put(
        PrimitiveType.TIMESTAMP,
        List.of(
            Instant.parse("1960-06-01T00:00:00.5Z"),
            Instant.parse("2024-02-29T23:59:59.999999Z"),
            Instant.EPOCH));
    samples.put(new DecimalType(38, 6), List.of(new BigDecimal("-12345678901234567890.123456")));
    samples.forEach(
        (type, values) -> {
          for (Object value : values) {
            String text = DataFiles.serializePartitionValue(value, type);
            assertThat(DataFiles.parsePartitionValue(text, type))
                .as("%s as %s", value, type)
                .isEqualTo(value);
          }
        });
  }

  @Test
  void parsesIsoTimestampsAndEmptyStringsAsNull() {
    assertThat(
            DataFiles.parsePartitionValue("1970-01-01T00:00:00.123456Z", PrimitiveType.TIMESTAMP))
        .isEqualTo(Instant.parse("1970-01-01T00:00:00.123456Z"));
    assertThat(DataFiles.parsePartitionValue("2024-01-01T02:00:00+02:00", PrimitiveType.TIMESTAMP))
        .isEqualTo(Instant.parse("2024-01-01T00:00:00Z"));
    assertThat(DataFiles.parsePartitionValue("2024-01-01 10:00:00.1", PrimitiveType.TIMESTAMP))
        .isEqualTo(Instant.parse("2024-01-01T10:00:00.100Z"));
    assertThat(DataFiles.parsePartitionValue("", PrimitiveType.INTEGER)).isNull();
    assertThat(DataFiles.parsePartitionValue(null, PrimitiveType.STRING)).isNull();
    assertThat(DataFiles.parsePartitionValue("5", new DecimalType(4, 2)))
        .isEqualTo(new BigDecimal("5.00"));
  }

  @Test
  void timestampsAreWrittenInUtcWithAZoneAndOlderZoneLessValuesStillReadAsUtc() {
    // A zone-less value means the reader's session zone to Spark: ours must carry the zone.
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    String written = DataFiles.serializePartitionValue(t, PrimitiveType.TIMESTAMP);
    assertThat(written).isEqualTo("2026-01-01T00:00:00.000000Z");
    assertThat(DataFiles.partitionDirectory(List.of("ts"), Map.of("ts", written)))
        .isEqualTo("ts=2026-01-01T00%3A00%3A00.000000Z/");
    assertThat(DataFiles.parsePartitionValue(written, PrimitiveType.TIMESTAMP)).isEqualTo(t);
    // what versions before this change wrote: UTC without a zone, fraction only when non-zero
    assertThat(DataFiles.parsePartitionValue("2026-01-01 00:00:00", PrimitiveType.TIMESTAMP))
        .isEqualTo(t);
    assertThat(DataFiles.parsePartitionValue("2026-01-01 00:00:00.000123", PrimitiveType.TIMESTAMP))
        .isEqualTo(t.plusNanos(123_000));
  }

  @Test
  void aValueThatCannotNameADirectoryIsReportedWithItsColumn() {
    assertThat(PartitionValues.segmentProblem("region", "EU")).isNull();
    assertThat(PartitionValues.segmentProblem("region", null)).isNull();
    assertThat(PartitionValues.segmentProblem("region", "E\0U"))
        .isEqualTo(
            "partition column 'region': the value contains a NUL character, which no file system"
                + " or object store accepts in a directory name");
    // "region=" is 7 bytes: 248 plain characters fit exactly, one more does not
    assertThat(PartitionValues.segmentProblem("region", "x".repeat(248))).isNull();
    assertThat(PartitionValues.segmentProblem("region", "x".repeat(249)))
        .startsWith(
            "partition column 'region': the value makes a directory name of 256 bytes (escaped),"
                + " above the 255-byte file-name limit");
    // escaping triples '/', and multi-byte characters count in bytes
    assertThat(PartitionValues.segmentProblem("region", "/".repeat(83))).contains("256 bytes");
    assertThat(PartitionValues.segmentProblem("region", "ü".repeat(124))).isNull();
    assertThat(PartitionValues.segmentProblem("region", "ü".repeat(125))).contains("257 bytes");
  }

  @Test
  void aMalformedValueIsReportedWithTextAndType() {
    assertThatThrownBy(() -> DataFiles.parsePartitionValue("12x", PrimitiveType.LONG))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse partition value '12x' as long");
    assertThatThrownBy(() -> DataFiles.parsePartitionValue("yes", PrimitiveType.BOOLEAN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expected true or false");
    assertThatThrownBy(() -> DataFiles.parsePartitionValue("1.234", new DecimalType(4, 2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot parse partition value '1.234' as decimal(4,2)");
  }

  @Test
  void directoriesEscapeSpecialCharactersLikeSpark() {
    Map<String, String> values = new HashMap<>();
    values.put("region", "a/b=c d%");
    values.put("day", null);
    assertThat(DataFiles.partitionDirectory(List.of("region", "day"), values))
        .isEqualTo("region=a%2Fb%3Dc d%25/day=__HIVE_DEFAULT_PARTITION__/");
    assertThat(
            DataFiles.partitionDirectory(
                List.of("we:ird"), Map.of("we:ird", "#?*[x]^{}\\'\"\u0001\u007F")))
        .isEqualTo("we%3Aird=%23%3F%2A%5Bx%5D%5E%7B}%5C%27%22%01%7F/");
    assertThat(DataFiles.partitionDirectory(List.of("u"), Map.of("u", "Zürich ✓")))
        .isEqualTo("u=Zürich ✓/");
    assertThat(DataFiles.partitionDirectory(List.of(), Map.of())).isEmpty();
  }

  @Test
  void structAndBinaryColumnsCannotBePartitionColumns() {
    assertThatThrownBy(() -> PartitionValues.checkPartitionable("raw", PrimitiveType.BINARY))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot partition by column 'raw' of type binary");
    assertThatThrownBy(
            () -> PartitionValues.checkPartitionable("s", new StructType(Arrays.asList())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Cannot partition by column 's' of type struct");
  }
}
