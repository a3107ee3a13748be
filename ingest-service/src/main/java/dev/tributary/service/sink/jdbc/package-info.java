/**
 * The JDBC sink ({@code sink.jdbc}): {@link dev.tributary.service.sink.jdbc.JdbcTableSink} writes a
 * batch's rows and the batch's progress row in one database transaction; what differs between
 * databases (types, quoting, bulk loading, error classes) sits behind {@link
 * dev.tributary.service.sink.jdbc.SqlDialect}, implemented for PostgreSQL by {@link
 * dev.tributary.service.sink.jdbc.PostgresDialect}.
 */
package dev.tributary.service.sink.jdbc;
