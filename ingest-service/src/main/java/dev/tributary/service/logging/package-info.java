/**
 * Logging: the command line's configuration in code ({@link
 * dev.tributary.service.logging.CommandLineLogging}) and serve mode's {@code logback-serve.xml}
 * share one helper: {@link dev.tributary.service.logging.RepeatedWarnings} keeps a client library
 * that repeats the same warning every second (Kafka's network client while a broker is down) from
 * flooding the log. Uses logback only; nothing of the engine.
 */
package dev.tributary.service.logging;
