/**
 * Backfills ({@code tributary backfill}, docs/DESIGN.md "Backfills"): the pipeline's query run
 * again over the events of a time range [from, to), read from the source with a checkpoint of its
 * own and written to a new table ({@code --into}), or to a staging table inside the live table's
 * folder whose files then replace the range's rows of the live table in one commit ({@code
 * --replace}: {@link Backfill#replace}, placing the live files with {@link RangeFiles}); the live
 * pipeline's checkpoint is never touched, nor its table but by that one commit. Owns the range and
 * what it means for rows and windows ({@link BackfillRange}, {@link RowSelector}, {@link
 * EdgeWindows}), the backfill's declaration derived from the live one ({@link BackfillPlan}), and
 * the run ({@link Backfill}). Uses the engine as any run does, through {@link
 * dev.tributary.service.pipeline.RunBounds}; no Kafka or Delta code of its own.
 */
package dev.tributary.service.backfill;
