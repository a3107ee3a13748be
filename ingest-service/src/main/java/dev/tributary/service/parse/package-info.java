/**
 * Record parsing: turns one Kafka record value into a row aligned with the pipeline's declared
 * {@link dev.tributary.table.types.StructType}, or into a failure message for the quarantine table.
 * {@link dev.tributary.service.parse.RecordDecoder} is the format SPI; this package holds the JSON
 * implementation, {@code parse.avro} the Avro one, {@code parse.protobuf} the Protobuf one, {@code
 * parse.debezium} the Debezium envelope over the JSON and Avro ones; {@link
 * dev.tributary.service.parse.FramedDecoding}, {@link dev.tributary.service.parse.SchemaIdCache}
 * and {@link dev.tributary.service.parse.WireErrors} are what the two Confluent-framed decoders
 * share. This is the hot path of every pipeline, so it streams tokens with Jackson's {@code
 * JsonParser} and never builds a tree. Plain Java + Jackson 2 + the table type model: it must not
 * use Spring or Kafka. The coercion rules are documented in {@code docs/EXPRESSIONS.md}.
 */
package dev.tributary.service.parse;
