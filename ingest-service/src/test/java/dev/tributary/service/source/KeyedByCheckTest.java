package dev.tributary.service.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

/** The keyed-by contract on single records: the partition, then the key against the row. */
class KeyedByCheckTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("user_id", PrimitiveType.STRING),
          StructField.nullable("region", PrimitiveType.STRING),
          StructField.nullable("n", PrimitiveType.LONG));
  private static final int PARTITIONS = 4;

  private static ConsumerRecord<byte[], byte[]> record(int partition, String key) {
    return new ConsumerRecord<>(
        "clicks",
        partition,
        17L,
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        new byte[0]);
  }

  /** Where Kafka's own producer sends a keyed record (its built-in partitioner). */
  private static int producerPartition(String key) {
    return BuiltInPartitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), PARTITIONS);
  }

  @Test
  void acceptsARecordKeyedAsTheProducerKeysIt() {
    KeyedByCheck check = new KeyedByCheck(List.of("user_id"), SCHEMA, PARTITIONS);
    for (String user : List.of("u1", "u2", "ü-3", "")) {
      assertThat(KeyedByCheck.partitionOf(user.getBytes(StandardCharsets.UTF_8), PARTITIONS))
          .isEqualTo(producerPartition(user));
      assertThat(
              check.problem(record(producerPartition(user), user), new Object[] {user, "eu", 1L}))
          .isEmpty();
    }
  }

  @Test
  void reportsAKeyInTheWrongPartitionNamingTopicPartitionOffsetAndColumns() {
    KeyedByCheck check = new KeyedByCheck(List.of("user_id"), SCHEMA, PARTITIONS);
    int wrong = (producerPartition("u1") + 1) % PARTITIONS;
    assertThat(check.problem(record(wrong, "u1"), new Object[] {"u1", "eu", 1L}))
        .hasValueSatisfying(
            p ->
                assertThat(p)
                    .startsWith(
                        "keyed-by [user_id]: record clicks/"
                            + wrong
                            + "@17 is not keyed as declared")
                    .contains(
                        "its key 'u1' goes to partition "
                            + producerPartition("u1")
                            + " of 4 with Kafka's default partitioner")
                    .contains("not to partition " + wrong + " it was read from"));
  }

  @Test
  void reportsAKeyThatIsNotTheRowsValueAndARecordWithoutKey() {
    KeyedByCheck check = new KeyedByCheck(List.of("user_id"), SCHEMA, PARTITIONS);
    // the key hashes to its partition, but the row belongs to another user
    assertThat(check.problem(record(producerPartition("u1"), "u1"), new Object[] {"u2", "eu", 1L}))
        .hasValueSatisfying(
            p -> assertThat(p).contains("its key 'u1' is not its keyed-by values [u2]"));
    assertThat(check.problem(record(0, null), new Object[] {"u1", "eu", 1L}))
        .hasValueSatisfying(p -> assertThat(p).contains("it has no key"));
    assertThat(check.problem(record(producerPartition("u1"), "u1"), new Object[] {null, "eu", 1L}))
        .hasValueSatisfying(p -> assertThat(p).contains("a keyed-by column is null"));
  }

  @Test
  void severalColumnsAreTheJsonArrayOfTheirValues() {
    KeyedByCheck check = new KeyedByCheck(List.of("region", "n"), SCHEMA, PARTITIONS);
    String key = "[\"e\\\"u\",42]";
    assertThat(
            new String(
                KeyedByCheck.keyOf(List.of("e\"u", 42L)).orElseThrow(), StandardCharsets.UTF_8))
        .isEqualTo(key);
    assertThat(check.problem(record(producerPartition(key), key), new Object[] {"x", "e\"u", 42L}))
        .isEmpty();
    assertThat(check.problem(record(producerPartition(key), key), new Object[] {"x", "e\"u", 43L}))
        .isPresent();
  }
}
