package dev.tributary.service.engine;

import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A check of a parsed record's row against the record it came from, run by a processor before the
 * row enters state (such as {@code source.kafka.keyed-by}: the record's key must hash to its
 * partition and match the row's keyed-by columns). A problem is a data error: the processor
 * quarantines the record with it, as it does a record that does not parse.
 */
@FunctionalInterface
public interface RowCheck {
  /**
   * @param record the Kafka record
   * @param row its row after the stateless steps (the stateful operators' input schema)
   * @return why the record is wrong, naming what the user must fix; empty when it is fine
   */
  Optional<String> problem(ConsumerRecord<byte[], byte[]> record, Object[] row);
}
