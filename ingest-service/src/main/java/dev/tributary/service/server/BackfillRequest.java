package dev.tributary.service.server;

/**
 * The body of a range backfill ({@code POST /api/pipelines/{id}/backfill}): the arguments of {@code
 * tributary backfill}.
 *
 * @param from the first instant of the event-time range, UTC ({@code 2026-11-01T00:00:00Z})
 * @param to the first instant after it
 * @param into the new table to write (exclusive with {@code replace})
 * @param replace whether to swap the range in the live table; null reads as false
 */
public record BackfillRequest(String from, String to, String into, Boolean replace) {

  /** Whether the request asks for the range to be replaced in the live table. */
  boolean replacing() {
    return Boolean.TRUE.equals(replace);
  }
}
