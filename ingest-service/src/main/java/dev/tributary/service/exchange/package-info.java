/**
 * A stateful pipeline in consumer-group mode (docs/DESIGN.md, "Stateful pipelines in group mode"):
 * the repartition topic ({@link dev.tributary.service.exchange.ExchangeTopic}); stage 1's progress
 * model, which commits the group's offsets in the Kafka transaction that carries the rows ({@link
 * dev.tributary.service.exchange.ExchangeProgress}, {@link
 * dev.tributary.service.exchange.ExchangeSink}); stage 2's sub-pipelines, one per repartition
 * partition ({@link dev.tributary.service.exchange.PartitionPipelines}); and the round that runs
 * both stages on one thread ({@link dev.tributary.service.exchange.GroupStatefulRounds}). Uses the
 * engine's body, models and trigger loop; holds no run loop of its own.
 */
package dev.tributary.service.exchange;
