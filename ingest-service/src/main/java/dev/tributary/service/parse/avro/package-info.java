/**
 * Avro in the Confluent wire format ({@code format.avro}): the {@link
 * dev.tributary.service.parse.RecordDecoder} that reads each record's writer schema from the
 * registry by id, projects it on the declared columns with Avro's resolution rules, and converts
 * the values to the table's Java representation (the same as JSON's). docs/FORMATS.md has the type
 * mapping and the quarantine reasons. Plain Java + Avro; no Spring, no Kafka.
 */
package dev.tributary.service.parse.avro;
