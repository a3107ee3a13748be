/**
 * The pipeline's sources behind the engine's {@code Source} SPI: Kafka topics ({@link
 * dev.tributary.service.source.KafkaSource}) and Delta tables ({@link
 * dev.tributary.service.source.DeltaTableSource}).
 *
 * <p>The Kafka source is split by role, Flink's split enumerator and split reader being the model,
 * all parts sharing the one consumer {@link dev.tributary.service.source.KafkaClients} creates:
 * {@link dev.tributary.service.source.RangePlanner} decides each batch's offset ranges from the
 * checkpoint's positions and the broker's offsets ({@link
 * dev.tributary.service.source.PartitionOffsets}, answered by {@link
 * dev.tributary.service.source.BrokerMetadata}), including what happens to a partition deleted,
 * re-created or cut back; {@link dev.tributary.service.source.RangeReader} reads exactly those
 * ranges; {@link dev.tributary.service.source.KafkaSource} adapts both to the engine (the
 * conversions in {@link dev.tributary.service.source.KafkaRanges}); in group assignment {@link
 * dev.tributary.service.source.GroupMembership} follows the rebalances and {@link
 * dev.tributary.service.source.KafkaGroup} serves the exchange stages' group calls.
 *
 * <p>Uses the engine's SPI types, kafka-clients and the table format; never the exchange or the
 * pipeline packages (they use this one).
 */
package dev.tributary.service.source;
