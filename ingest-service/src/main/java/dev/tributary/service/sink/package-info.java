/**
 * Sinks beyond Delta (docs/DESIGN.md, "Sinks beyond Delta"): each is one {@link
 * dev.tributary.service.engine.TableSink} implementation that keeps its own idempotency key where
 * it writes, atomically with the batch's rows. {@code jdbc} writes a database table and a progress
 * row in one database transaction; {@code kafka} sends a batch's records and a marker of the batch
 * in one Kafka transaction; {@link dev.tributary.service.sink.FanOutSink} feeds one batch to
 * several sinks in the declared order; {@code route} sends each row to one of many Delta tables
 * ({@code sink.delta.route}); {@link dev.tributary.service.sink.Sinks} opens the sinks a
 * declaration names. Uses the engine's SPI, the config model and the clients (JDBC driver,
 * kafka-clients); the engine does not know these classes.
 */
package dev.tributary.service.sink;
