package dev.tributary.service.parse.avro;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

/** The columns {@code columns: all} makes of a writer record: one per mapped field, in order. */
class WriterColumnsTest {
  private static final Schema RECORD =
      new Schema.Parser()
          .parse(
              """
              {"type": "record", "name": "Row", "fields": [
                {"name": "id", "type": "long"},
                {"name": "n", "type": "int"},
                {"name": "ok", "type": "boolean"},
                {"name": "f", "type": "float"},
                {"name": "d", "type": ["null", "double"], "default": null},
                {"name": "s", "type": "string"},
                {"name": "tier", "type": {"type": "enum", "name": "Tier", "symbols": ["A", "B"]}},
                {"name": "day", "type": {"type": "int", "logicalType": "date"}},
                {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
                {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 2}},
                {"name": "dbz_day", "type": {"type": "int", "connect.name": "io.debezium.time.Date"}},
                {"name": "dbz_at", "type": {"type": "long", "connect.name": "io.debezium.time.MicroTimestamp"}},
                {"name": "address", "type": ["null", {"type": "record", "name": "Address", "fields": [
                  {"name": "city", "type": "string"}, {"name": "zip", "type": ["null", "string"]}]}]},
                {"name": "tags", "type": {"type": "array", "items": "string"}},
                {"name": "blob", "type": "bytes"},
                {"name": "either", "type": ["int", "string"]}]}""");

  @Test
  void everyMappedFieldIsAColumnInWriterOrderAndTheOthersAreListed() {
    WriterColumns plain = WriterColumns.of(RECORD, WriterColumns.Flavour.PLAIN);
    assertThat(plain.columns())
        .containsExactlyEntriesOf(
            ordered(
                "id",
                "long",
                "n",
                "int",
                "ok",
                "boolean",
                "f",
                "float",
                "d",
                "double",
                "s",
                "string",
                "tier",
                "string",
                "day",
                "date",
                "at",
                "timestamp",
                "amount",
                "decimal(12,2)",
                "dbz_day",
                "int",
                "dbz_at",
                "long",
                "address.city",
                "string",
                "address.zip",
                "string"));
    assertThat(plain.skipped()).containsExactly("tags", "blob", "either");
  }

  @Test
  void debeziumsTimeTypesAreTimesWithTheEnvelope() {
    Map<String, String> cdc = WriterColumns.of(RECORD, WriterColumns.Flavour.DEBEZIUM).columns();
    assertThat(cdc).containsEntry("dbz_day", "date").containsEntry("dbz_at", "timestamp(micros)");
  }

  private static Map<String, String> ordered(String... pairs) {
    java.util.LinkedHashMap<String, String> map = new java.util.LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map;
  }
}
