/**
 * Backfills ({@code tributary backfill}, docs/DESIGN.md "Backfills"): the pipeline's query run
 * again over the events of a time range [from, to), read from the source with a checkpoint of its
 * own and written to a new table; the live pipeline's checkpoint and tables are never touched. Owns
 * the range and what it means for rows and windows ({@link BackfillRange}, {@link RowSelector},
 * {@link EdgeWindows}), the backfill's declaration derived from the live one ({@link
 * BackfillPlan}), and the run ({@link Backfill}). Uses the engine as any run does, through {@link
 * dev.tributary.service.pipeline.RunBounds}; no Kafka or Delta code of its own.
 */
package dev.tributary.service.backfill;
