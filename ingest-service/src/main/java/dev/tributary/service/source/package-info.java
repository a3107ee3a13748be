/**
 * Where a pipeline's input comes from, behind the engine's {@link
 * dev.tributary.service.engine.Source}: Kafka topics ({@link
 * dev.tributary.service.source.KafkaSource}: exact offset ranges read with assign and seek, never
 * from consumer-group positions; in group assignment a member of the consumer group, {@link
 * dev.tributary.service.source.GroupMembership}) and Delta tables ({@link
 * dev.tributary.service.source.DeltaTableSource}). Planning decides each batch's range from the
 * previous one and the rate limits; reading delivers exactly that range, the first time and on
 * replay.
 */
package dev.tributary.service.source;
