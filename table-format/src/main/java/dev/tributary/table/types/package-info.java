/**
 * The table schema types: {@link dev.tributary.table.types.StructType} of {@link
 * dev.tributary.table.types.StructField}s whose {@link dev.tributary.table.types.DataType} is a
 * primitive, a decimal, a struct, an array or a map, with Delta's JSON names, and the type changes
 * Delta allows ({@link dev.tributary.table.types.TypeChange}). Plain values, no I/O.
 */
package dev.tributary.table.types;
