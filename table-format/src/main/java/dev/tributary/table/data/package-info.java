/**
 * Parquet data files of Delta tables: {@link dev.tributary.table.data.DataFiles} writes rows into
 * partitioned, size-rolled files with per-file column statistics and reads them back.
 *
 * <p>Physical types, chosen as Spark and Delta write them so that Spark, Trino, DuckDB, delta-rs
 * and Delta Kernel read our files: string = BINARY (STRING), integer = INT32, long = INT64, double
 * = DOUBLE, boolean = BOOLEAN, timestamp = INT64 TIMESTAMP(MICROS, adjusted to UTC), date = INT32
 * DATE, binary = BINARY, decimal(p,s) = INT32 (p &le; 9), INT64 (p &le; 18) or FIXED_LEN_BYTE_ARRAY
 * of the minimum width, annotated DECIMAL(p,s); byte/short = INT32 INT(8)/INT(16), float = FLOAT,
 * timestamp_ntz = INT64 TIMESTAMP(MICROS, not adjusted to UTC); struct = group; array = the
 * three-level LIST group, map = the MAP group. Nullable fields are OPTIONAL, the others REQUIRED;
 * the root group is named {@code spark_schema}.
 *
 * <p>Statistics follow Delta's: min/max per leaf column except boolean and binary; strings cut to a
 * 32-code-point prefix (the max replaced by a short upper bound, or omitted if none exists); double
 * bounds omitted once a NaN is seen; none for timestamp_ntz; null counts for every leaf, where a
 * null struct counts as null in each of its fields, and for array and map columns (no bounds).
 *
 * <p>Implementation notes: no Avro or example object model on the hot path (a hand-written {@code
 * WriteSupport}/{@code ReadSupport}); no Hadoop {@code FileSystem} ({@code OutputFile} and {@code
 * InputFile} over the {@link dev.tributary.storage.ObjectStore}, with {@code
 * PlainParquetConfiguration}) and no Hadoop codecs ({@link ParquetCodecs}): Hadoop's {@code
 * Configuration} cannot load without {@code hadoop-client-runtime}, which the service jar does not
 * ship. This package must not depend on the Delta log package.
 */
package dev.tributary.table.data;
