package dev.tributary.table.types;

/**
 * A column type, as Delta's schema serialization names it. Each type fixes the Java class of its
 * values in a row:
 *
 * <table>
 *   <tr><th>type</th><th>Delta name</th><th>Java value</th></tr>
 *   <tr><td>{@link PrimitiveType#STRING}</td><td>string</td><td>{@link String}</td></tr>
 *   <tr><td>{@link PrimitiveType#BYTE}</td><td>byte</td><td>{@link Byte}</td></tr>
 *   <tr><td>{@link PrimitiveType#SHORT}</td><td>short</td><td>{@link Short}</td></tr>
 *   <tr><td>{@link PrimitiveType#INTEGER}</td><td>integer</td><td>{@link Integer}</td></tr>
 *   <tr><td>{@link PrimitiveType#LONG}</td><td>long</td><td>{@link Long}</td></tr>
 *   <tr><td>{@link PrimitiveType#FLOAT}</td><td>float</td><td>{@link Float}</td></tr>
 *   <tr><td>{@link PrimitiveType#DOUBLE}</td><td>double</td><td>{@link Double}</td></tr>
 *   <tr><td>{@link PrimitiveType#BOOLEAN}</td><td>boolean</td><td>{@link Boolean}</td></tr>
 *   <tr><td>{@link PrimitiveType#TIMESTAMP}</td><td>timestamp</td><td>{@link java.time.Instant} (microsecond precision)</td></tr>
 *   <tr><td>{@link PrimitiveType#TIMESTAMP_NTZ}</td><td>timestamp_ntz</td><td>{@link java.time.LocalDateTime} (microsecond precision, no time zone)</td></tr>
 *   <tr><td>{@link PrimitiveType#DATE}</td><td>date</td><td>{@link java.time.LocalDate}</td></tr>
 *   <tr><td>{@link PrimitiveType#BINARY}</td><td>binary</td><td>{@code byte[]}</td></tr>
 *   <tr><td>{@link DecimalType}</td><td>decimal(p,s)</td><td>{@link java.math.BigDecimal} with scale s</td></tr>
 *   <tr><td>{@link StructType}</td><td>struct</td><td>{@code Object[]} aligned with the fields</td></tr>
 *   <tr><td>{@link ArrayType}</td><td>array</td><td>unmodifiable {@link java.util.List} of the element values</td></tr>
 *   <tr><td>{@link MapType}</td><td>map</td><td>unmodifiable {@link java.util.Map} (insertion-ordered) of the key and value values</td></tr>
 *   <tr><td>{@link VariantType}</td><td>variant</td><td>{@link String}: the value's JSON text, as Spark's {@code to_json} renders it (read only)</td></tr>
 * </table>
 *
 * <p>A null value is a Java {@code null} in every type.
 */
public sealed interface DataType
    permits PrimitiveType, DecimalType, StructType, ArrayType, MapType, VariantType {

  /**
   * The name Delta's {@code schemaString} uses for this type ("long", "decimal(10,2)", "struct").
   */
  String deltaName();
}
