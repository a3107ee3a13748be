package dev.tributary.service.engine;

import dev.tributary.table.data.RowChecks;
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

  /**
   * The quarantine row of a record. A Kafka timestamp outside the years 0001-9999 (producers may
   * set any) is stored as null, so that the quarantine row itself can always be written.
   */
  public static Object[] row(
      ConsumerRecord<byte[], byte[]> record, String error, String pipeline, long batchId, Instant at) {
    Instant kafkaTimestamp = Instant.ofEpochMilli(record.timestamp());
    if (RowChecks.valueProblem("kafka_timestamp", PrimitiveType.TIMESTAMP, kafkaTimestamp) != null) {
      kafkaTimestamp = null;
    }
    return new Object[] {
      record.topic(),
      record.partition(),
      record.offset(),
      kafkaTimestamp,
      record.key(),
      record.value(),
      error,
      pipeline,
      batchId,
      at
    };
  }
}
