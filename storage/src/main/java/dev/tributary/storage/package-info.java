/**
 * Object storage for tables and checkpoints: one small {@link dev.tributary.storage.ObjectStore}
 * interface (read, ranged read, sorted list, put, put-if-absent, delete, streaming write) with a
 * local-disk and an S3 implementation, opened through {@link dev.tributary.storage.ObjectStores}
 * from a location string ({@code /path}, {@code file:} URI or {@code s3://bucket/prefix}) and
 * {@link dev.tributary.storage.S3Settings}.
 *
 * <p>This module owns nothing about Delta, Kafka or checkpoints; it must not use Spring, Kafka or
 * Parquet, and only its S3 implementation uses the AWS SDK. It also holds the one retry policy of
 * the code base ({@link dev.tributary.storage.retry}), because every other module depends on it.
 * Put-if-absent is the only commit primitive the layers above rely on: it is atomic, never
 * overwrites, and a reader never sees a partially written object. Implementations are
 * package-private; the public types are the interface, its value types, the key rules ({@link
 * dev.tributary.storage.ObjectKeys}) and the factory. See {@code docs/STORAGE.md}.
 */
package dev.tributary.storage;
