package dev.tributary.service.upsert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.HistoryMergeTransaction;
import dev.tributary.table.MergeTransaction;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The batch side of {@code history: scd2}: the order and instants the merge receives. */
class HistoryBufferTest {
  static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("changed_at", PrimitiveType.TIMESTAMP),
          StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
          StructField.nullable("_kafka_offset", PrimitiveType.LONG),
          StructField.nullable("_kafka_timestamp", PrimitiveType.TIMESTAMP));

  final HistoryBuffer buffer = new HistoryBuffer("p", SCHEMA, List.of("id"), "changed_at");

  static Object[] row(long id, Long second, int partition, long offset, long kafkaSecond) {
    return new Object[] {
      id,
      second == null ? null : Instant.ofEpochSecond(second),
      partition,
      offset,
      Instant.ofEpochSecond(kafkaSecond)
    };
  }

  static String show(HistoryMergeTransaction.Change c) {
    return c.kind() + " " + c.row()[0] + " @" + c.at() + " " + c.placement();
  }

  @Test
  void changesGoToTheMergeByInstantThenOffsetWithTheHistoryColumnsAppended() {
    buffer.upsert(row(1, 30L, 0, 5, 0));
    buffer.upsert(row(1, 10L, 0, 6, 0)); // late: first by instant
    buffer.upsert(row(2, 10L, 1, 2, 0)); // same instant, lower offset: before key 1's
    buffer.delete(row(1, 40L, 0, 7, 0));
    assertThat(buffer.received()).isEqualTo(4);
    List<HistoryMergeTransaction.Change> changes = buffer.changes();
    assertThat(changes.stream().map(HistoryBufferTest::show))
        .containsExactly(
            "UPSERT 2 @10000000 AT",
            "UPSERT 1 @10000000 AT",
            "UPSERT 1 @30000000 AT",
            "DELETE 1 @40000000 AT");
    assertThat(changes.get(0).row()).hasSize(SCHEMA.size() + 3);
  }

  @Test
  void aTombstoneTakesItsKafkaTimeButNotBeforeItsKeysEarlierChanges() {
    buffer.upsert(row(1, 100L, 0, 1, 0));
    buffer.delete(row(1, null, 0, 2, 50)); // stamped before the upsert: just after it
    buffer.delete(row(2, null, 1, 3, 70)); // nothing before it in the batch: its Kafka time
    assertThat(buffer.changes().stream().map(HistoryBufferTest::show))
        .containsExactly(
            "DELETE 2 @70000000 NOT_BEFORE_LATEST",
            "UPSERT 1 @100000000 AT",
            "DELETE 1 @100000001 NOT_BEFORE_LATEST");
    assertThat(buffer.changes().get(1).kind()).isEqualTo(MergeTransaction.Kind.UPSERT);
  }

  @Test
  void aChangeWithNeitherSequenceNorKafkaTimeIsRefusedByPipeline() {
    HistoryBuffer noKafka =
        new HistoryBuffer(
            "orders",
            StructType.of(
                StructField.nullable("id", PrimitiveType.LONG),
                StructField.nullable("changed_at", PrimitiveType.TIMESTAMP)),
            List.of("id"),
            "changed_at");
    assertThatThrownBy(() -> noKafka.delete(new Object[] {1L, null}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "Pipeline orders: a delete has no sequence-by value and no Kafka timestamp, so"
                + " history: scd2 cannot place it in its key's history");
  }
}
