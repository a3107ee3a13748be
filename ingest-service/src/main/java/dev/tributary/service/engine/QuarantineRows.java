package dev.tributary.service.engine;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The quarantine table: every record that could not be parsed, with its provenance, so nothing is
 * dropped silently and a fixed record can be replayed from it.
 */
public final class QuarantineRows {
  /** Columns: topic, partition, offset, kafka_timestamp, key, value, error, pipeline, batch_id, quarantined_at. */
  public static final StructType SCHEMA = StructType.of(
      StructField.nullable("topic", PrimitiveType.STRING),
      StructField.nullable("partition", PrimitiveType.INTEGER),
      StructField.nullable("offset", PrimitiveType.LONG),
      StructField.nullable("kafka_timestamp", PrimitiveType.TIMESTAMP),
      StructField.nullable("key", PrimitiveType.BINARY),
      StructField.nullable("value", PrimitiveType.BINARY),
      StructField.nullable("error", PrimitiveType.STRING),
      StructField.nullable("pipeline", PrimitiveType.STRING),
      StructField.nullable("batch_id", PrimitiveType.LONG),
      StructField.nullable("quarantined_at", PrimitiveType.TIMESTAMP));

  private QuarantineRows() {}

  public static Object[] row(
      ConsumerRecord<byte[], byte[]> record, String error, String pipeline, long batchId, Instant at) {
    return new Object[] {
      record.topic(),
      record.partition(),
      record.offset(),
      Instant.ofEpochMilli(record.timestamp()),
      record.key(),
      record.value(),
      error,
      pipeline,
      batchId,
      at
    };
  }
}
