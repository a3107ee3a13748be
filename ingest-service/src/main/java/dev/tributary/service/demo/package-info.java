/**
 * What {@code ./tributary demo} runs on: an embedded Kafka broker ({@link
 * dev.tributary.service.demo.EmbeddedBroker}), sample events with duplicates, late and malformed
 * records ({@link dev.tributary.service.demo.SampleEvents}, {@link
 * dev.tributary.service.demo.AvroEvents}) and a local schema registry ({@link
 * dev.tributary.service.demo.LocalSchemaRegistry}). Test and demo support shipped in the jar; no
 * pipeline depends on it.
 */
package dev.tributary.service.demo;
