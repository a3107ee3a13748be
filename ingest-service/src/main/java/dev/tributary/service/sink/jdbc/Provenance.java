package dev.tributary.service.sink.jdbc;

import dev.tributary.config.PipelineSpec;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where each row of a batch came from, kept compactly (a topic index, a partition and an offset per
 * row) so that a row the database refuses can be named by its source record when the database says
 * which row it was. Rows without the Kafka metadata columns (aggregates, a Delta source) are not
 * tracked.
 */
final class Provenance {
  private final Columns columns;
  private final List<String> topics = new ArrayList<>();
  private int[] topicIndex = new int[0];
  private int[] partitions = new int[0];
  private long[] offsets = new long[0];
  private int size;

  /** The indexes of {@code _kafka_topic}, {@code _kafka_partition}, {@code _kafka_offset}. */
  record Columns(int topic, int partition, int offset) {
    static Columns of(StructType schema) {
      List<String> names = PipelineSpec.KAFKA_METADATA_COLUMNS;
      return new Columns(
          schema.indexOf(names.get(0)), schema.indexOf(names.get(1)), schema.indexOf(names.get(2)));
    }

    boolean present() {
      return topic >= 0 && partition >= 0 && offset >= 0;
    }
  }

  Provenance(Columns columns) {
    this.columns = columns;
  }

  void add(Object[] row) {
    if (!columns.present()) {
      return;
    }
    if (size == offsets.length) {
      int grown = Math.max(1024, size * 2);
      topicIndex = Arrays.copyOf(topicIndex, grown);
      partitions = Arrays.copyOf(partitions, grown);
      offsets = Arrays.copyOf(offsets, grown);
    }
    String topic = String.valueOf(row[columns.topic()]);
    int index = topics.indexOf(topic);
    if (index < 0) {
      topics.add(topic);
      index = topics.size() - 1;
    }
    topicIndex[size] = index;
    partitions[size] = row[columns.partition()] instanceof Integer p ? p : -1;
    offsets[size] = row[columns.offset()] instanceof Long o ? o : -1;
    size++;
  }

  /** The source record of the {@code line}-th row (from 1): {@code topic/partition/offset}. */
  Optional<String> describe(long line) {
    long i = line - 1;
    if (!columns.present() || i < 0 || i >= size) {
      return Optional.empty();
    }
    int at = (int) i;
    return Optional.of(
        "topic "
            + topics.get(topicIndex[at])
            + " partition "
            + partitions[at]
            + " offset "
            + offsets[at]);
  }
}
