package dev.tributary.service.source;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.tributary.service.engine.RowCheck;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * The check of {@code source.kafka.keyed-by} on every record (docs/PIPELINE_REFERENCE.md,
 * "keyed-by"). The contract: the producer keyed the record by its keyed-by values with Kafka's
 * default partitioner, so
 *
 * <ol>
 *   <li>the record has a key, and {@code toPositive(murmur2(key)) % partitions} (kafka-clients'
 *       {@link Utils#murmur2} and {@link Utils#toPositive}, the default partitioner's formula for a
 *       keyed record) is the partition it was read from;
 *   <li>the key's bytes are the row's keyed-by values as text in UTF-8: for one column its value
 *       ({@code u42}, {@code 42}, {@code true}); for several, the JSON array of the values without
 *       spaces, in keyed-by order ({@code ["eu",42]}). A null value matches no key.
 * </ol>
 *
 * A record that breaks either is a data error, reported with its topic, partition, offset and the
 * columns: the processor quarantines it, so it reaches neither state nor the sink (a wrong
 * partition would otherwise split one key's state over two sub-pipelines, a silently wrong result).
 * Keyed-by columns are strings, integral numbers or booleans ({@link #SUPPORTED}).
 */
public final class KeyedByCheck implements RowCheck {
  /** The column types whose text form is unambiguous. */
  public static final Set<PrimitiveType> SUPPORTED =
      Set.of(
          PrimitiveType.STRING,
          PrimitiveType.BYTE,
          PrimitiveType.SHORT,
          PrimitiveType.INTEGER,
          PrimitiveType.LONG,
          PrimitiveType.BOOLEAN);

  private final List<String> columns;
  private final int[] indexes;
  private final int partitionCount;

  /**
   * @param columns the keyed-by columns, in declared order
   * @param schema the rows' schema; must hold every column, with a {@link #SUPPORTED} type
   * @param partitionCount the source topic's partition count (the default partitioner's modulus)
   */
  public KeyedByCheck(List<String> columns, StructType schema, int partitionCount) {
    this.columns = List.copyOf(columns);
    this.indexes = new int[columns.size()];
    for (int i = 0; i < indexes.length; i++) {
      indexes[i] = schema.indexOf(columns.get(i));
      if (indexes[i] < 0) {
        throw new IllegalArgumentException(
            "keyed-by column '" + columns.get(i) + "' is not in " + schema.fieldNames());
      }
    }
    if (partitionCount < 1) {
      throw new IllegalArgumentException("partitionCount " + partitionCount);
    }
    this.partitionCount = partitionCount;
  }

  /** The partition Kafka's default partitioner gives {@code key} among {@code partitions}. */
  public static int partitionOf(byte[] key, int partitions) {
    return Utils.toPositive(Utils.murmur2(key)) % partitions;
  }

  /**
   * The key bytes a producer writes for these values (the contract above); empty if one is null.
   */
  public static Optional<byte[]> keyOf(List<Object> values) {
    if (values.stream().anyMatch(Objects::isNull)) {
      return Optional.empty();
    }
    if (values.size() == 1) {
      return Optional.of(String.valueOf(values.get(0)).getBytes(StandardCharsets.UTF_8));
    }
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      Object v = values.get(i);
      if (v instanceof String s) {
        b.append('"').append(JsonStringEncoder.getInstance().quoteAsString(s)).append('"');
      } else {
        b.append(v);
      }
    }
    return Optional.of(b.append(']').toString().getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public Optional<String> problem(ConsumerRecord<byte[], byte[]> record, Object[] row) {
    byte[] key = record.key();
    if (key == null) {
      return Optional.of(error(record, "it has no key"));
    }
    int expected = partitionOf(key, partitionCount);
    if (expected != record.partition()) {
      return Optional.of(
          error(
              record,
              "its key "
                  + show(key)
                  + " goes to partition "
                  + expected
                  + " of "
                  + partitionCount
                  + " with Kafka's default partitioner (murmur2 of the key bytes), not to partition "
                  + record.partition()
                  + " it was read from"));
    }
    List<Object> values = new ArrayList<>(indexes.length);
    for (int i : indexes) {
      values.add(row[i]);
    }
    Optional<byte[]> wanted = keyOf(values);
    if (wanted.isEmpty()) {
      return Optional.of(error(record, "a keyed-by column is null: " + values));
    }
    if (!Arrays.equals(key, wanted.get())) {
      return Optional.of(
          error(
              record,
              "its key "
                  + show(key)
                  + " is not its keyed-by values "
                  + values
                  + " as the contract writes them: "
                  + show(wanted.get())));
    }
    return Optional.empty();
  }

  private String error(ConsumerRecord<byte[], byte[]> record, String why) {
    return "keyed-by "
        + columns
        + ": record "
        + record.topic()
        + "/"
        + record.partition()
        + "@"
        + record.offset()
        + " is not keyed as declared: "
        + why
        + "; the producers must key every record by "
        + columns
        + " with Kafka's default partitioner (docs/PIPELINE_REFERENCE.md, \"keyed-by\")";
  }

  private static String show(byte[] key) {
    String text = new String(key, StandardCharsets.UTF_8);
    return "'" + (text.length() > 80 ? text.substring(0, 80) + "…" : text) + "'";
  }
}
