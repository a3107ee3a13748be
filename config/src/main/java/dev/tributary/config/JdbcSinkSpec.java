package dev.tributary.config;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code sink.jdbc} section: a database table the result rows are written to, each batch in one
 * database transaction together with a progress row that makes a replayed batch a no-op
 * (docs/DESIGN.md, "The JDBC sink"). PostgreSQL is the supported database.
 *
 * @param url the JDBC URL, {@code jdbc:postgresql://host:5432/database}
 * @param table the table, optionally schema-qualified ({@code shop.orders}); names are used as
 *     written (quoted), so they are case-sensitive
 * @param user the database user, if not in the URL or the driver's defaults
 * @param password the user's password (a secret: masked wherever it could be shown)
 * @param write append every row, or upsert by {@code key}
 * @param key the columns an upsert matches rows by (a unique index must cover exactly them); empty
 *     for append. In update output mode: the aggregation's key, by default
 * @param createTable whether a missing table is created from the pipeline's output columns
 * @param properties passed through to the JDBC driver ({@code sslmode}, {@code connectTimeout}, …)
 */
public record JdbcSinkSpec(
    String url,
    String table,
    Optional<String> user,
    Optional<String> password,
    Write write,
    List<String> key,
    boolean createTable,
    Map<String, String> properties)
    implements SinkSpec {

  /** How rows reach the table ({@code write}). */
  public enum Write {
    /** {@code INSERT} (or {@code COPY}) every row. */
    APPEND,
    /** {@code INSERT … ON CONFLICT (key) DO UPDATE}: the batch's last row per key wins. */
    UPSERT;

    /** The name as written in files. */
    public String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Checks that no part is null and copies the lists. */
  public JdbcSinkSpec {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Objects.requireNonNull(write, "write");
    key = List.copyOf(key);
    properties = Map.copyOf(properties);
  }

  @Override
  public String keyword() {
    return "jdbc";
  }

  @Override
  public String location() {
    return url + " table " + table;
  }

  /** The same sink upserting by {@code keyColumns}. */
  public JdbcSinkSpec withKey(List<String> keyColumns) {
    return new JdbcSinkSpec(
        url, table, user, password, Write.UPSERT, keyColumns, createTable, properties);
  }

  /** Never shows the password or secret driver properties. */
  @Override
  public String toString() {
    return "JdbcSinkSpec[url="
        + url
        + ", table="
        + table
        + ", user="
        + user.orElse("")
        + ", password="
        + (password.isPresent() ? Secrets.MASK : "")
        + ", write="
        + write.keyword()
        + ", key="
        + key
        + ", createTable="
        + createTable
        + ", properties="
        + Secrets.maskProperties(properties)
        + "]";
  }
}
