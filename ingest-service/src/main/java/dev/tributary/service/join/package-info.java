/**
 * Stream-static joins: each batch's rows enriched with a Delta dimension table held in memory as a
 * hash index on the join keys. {@link dev.tributary.service.join.StreamJoins} is the operator the
 * stateless processor applies after the transforms; it refreshes each dimension once per batch and
 * records the version used in the batch's offsets entry, so a replay joins against exactly that
 * version. Plain Java over the table-format module: no Kafka, no Spring.
 */
package dev.tributary.service.join;
