/**
 * Routing to many tables ({@code sink.delta.route}): {@link
 * dev.tributary.service.sink.route.RoutedSink} sends each row to the Delta table its route value
 * names, creating the table on the route's first row, and commits each table with its own {@code
 * txn}; {@link dev.tributary.service.sink.route.RouteNames} says which values can name a table.
 * Uses the engine's {@code TableSink} SPI and the storage layer's views of a folder; knows nothing
 * of Kafka (docs/DESIGN.md, "Routing to many tables").
 */
package dev.tributary.service.sink.route;
