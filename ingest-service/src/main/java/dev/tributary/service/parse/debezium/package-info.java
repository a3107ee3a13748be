/**
 * Debezium change events ({@code envelope: debezium} of {@code format.json} and {@code
 * format.avro}): {@link dev.tributary.service.parse.debezium.DebeziumDecoder} reads the event with
 * the format's own decoder, over the event's fields, and turns it into the table's row (from {@code
 * after}, or {@code before} for a delete) plus {@code _op} and {@code _source_ts}; control events
 * (transaction boundaries, heartbeats, schema changes) are skipped, a truncate fails the batch
 * unless skipped. Plain Java over the {@code parse} SPI: no Spring, no Kafka.
 */
package dev.tributary.service.parse.debezium;
