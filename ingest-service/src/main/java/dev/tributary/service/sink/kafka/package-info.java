/**
 * The Kafka sink ({@code sink.kafka}): {@link dev.tributary.service.sink.kafka.KafkaTopicSink}
 * sends each output row as a record; with exactly-once delivery a batch's records and a marker of
 * the batch commit in one Kafka transaction whose transactional id is derived from the checkpoint,
 * so a restart reads the marker back and a zombie is fenced.
 */
package dev.tributary.service.sink.kafka;
