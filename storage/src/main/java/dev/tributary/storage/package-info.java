/**
 * Object storage for tables and checkpoints: one small {@link dev.tributary.storage.ObjectStore}
 * interface (read, ranged read, sorted list, put, put-if-absent, delete, streaming write) with a
 * local-disk and an S3 implementation.
 *
 * <p>This module owns nothing about Delta, Kafka or checkpoints; it must not use Spring, Kafka or
 * Parquet. Put-if-absent is the only commit primitive the layers above rely on: it is atomic,
 * never overwrites, and a reader never sees a partially written object.
 */
package dev.tributary.storage;
