/**
 * Reading a Delta table incrementally, as a streaming source does (Delta's {@code DeltaSource}):
 * {@link dev.tributary.table.stream.SourcePosition positions} in the table's history, {@link
 * dev.tributary.table.stream.StartingPoint starting points}, {@link
 * dev.tributary.table.stream.SourceLimits rate limits}, and the {@link
 * dev.tributary.table.stream.DeltaSourcePlanner planner} that cuts the history into replayable
 * ranges of files and reads their rows. See docs/DELTA_SOURCE.md for the rules and which Delta
 * behaviour each follows.
 */
package dev.tributary.table.stream;
