/**
 * Protobuf decoding of the Confluent wire format, standalone: compiles the {@code .proto} source a
 * Confluent-compatible schema registry stores (with its references and the well-known types) into
 * protobuf-java descriptors ({@link dev.tributary.service.parse.protobuf.ProtobufSchema}), reads
 * the message indexes that follow the 5-byte header ({@link
 * dev.tributary.service.parse.protobuf.MessageIndexes}), and turns a payload into a row of the
 * declared columns ({@link dev.tributary.service.parse.protobuf.ProtobufRecordDecoder}), with the
 * same Java value classes as the JSON parser. It fetches nothing: the registry client and the
 * 5-byte header belong to the caller. Plain Java + protobuf-java + Square's wire-schema parser +
 * the table type model: no Spring, no Kafka. The framing and the type mapping are documented in
 * {@code docs/FORMATS.md (section Protobuf)}.
 */
package dev.tributary.service.parse.protobuf;
