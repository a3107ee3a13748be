/**
 * Stage 1 of a stateful pipeline in consumer-group mode (docs/DESIGN.md, "Stateful pipelines in
 * group mode"): the repartition topic ({@link dev.tributary.service.exchange.ExchangeTopic}) and
 * the transactional writer that fills it from the source partitions this instance owns ({@link
 * dev.tributary.service.exchange.ExchangeWriter}).
 */
package dev.tributary.service.exchange;
