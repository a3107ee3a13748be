/**
 * One retry policy for the whole code base: {@link dev.tributary.storage.retry.RetryPolicy}
 * (bounded attempts, exponential backoff with jitter, a total time limit, a retry-on predicate, a
 * site name) and the per-site retry counts the service publishes ({@link
 * dev.tributary.storage.retry.RetryCounters}).
 *
 * <p>It lives in {@code storage} because every other module depends on this one. Each retry site
 * keeps its own rules of what is safe to retry (its predicate) and what "state unknown" means; the
 * policy only decides how often and how patiently. The waits are computed by Failsafe, which no
 * other package may use directly (docs/DESIGN.md "Retries").
 */
package dev.tributary.storage.retry;
