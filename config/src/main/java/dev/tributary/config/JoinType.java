package dev.tributary.config;

import java.util.Locale;

/**
 * How a stream row without a matching dimension row is treated ({@code join[].type}; default {@link
 * #INNER}).
 */
public enum JoinType {
  /** Only stream rows with at least one matching dimension row are kept. */
  INNER,
  /** Every stream row is kept; the dimension's columns are null where no dimension row matches. */
  LEFT;

  /** Returns the name as written in files, e.g. {@code left}. */
  public String keyword() {
    return name().toLowerCase(Locale.ROOT);
  }
}
