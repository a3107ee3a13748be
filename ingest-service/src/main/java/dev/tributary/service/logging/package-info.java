/**
 * Logging helpers installed by the logback configurations ({@code logback.xml} of the command line,
 * {@code logback-serve.xml} of serve mode): {@link dev.tributary.service.logging.RepeatedWarnings}
 * keeps a client library that repeats the same warning every second (Kafka's network client while a
 * broker is down) from flooding the log. Uses logback only; nothing of the engine.
 */
package dev.tributary.service.logging;
