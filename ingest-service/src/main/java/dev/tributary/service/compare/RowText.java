package dev.tributary.service.compare;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The canonical text of a row: two rows are equal (as SQL's set operations see them: a null equals
 * a null) exactly when their texts are equal, and the same text is what the samples print.
 *
 * <p>Why text: one encoding serves as the hash and equality key of the comparison, as the spill
 * format, and as the printed sample, with no decoder to keep in step. It is injective because
 * strings are quoted and escaped and every value's form says its shape. Floating point follows
 * Spark's normalization of grouping keys: {@code -0.0} is {@code 0.0}, every NaN is one NaN.
 * Decimals keep their column's scale (both tables' columns have the same type), so {@code 1.50} of
 * a {@code decimal(5,2)} is always written {@code 1.50}.
 */
final class RowText {
  private static final HexFormat HEX = HexFormat.of();

  private RowText() {}

  /**
   * The text of the values at {@code columns} of {@code row}, as a tuple: {@code (1, 'EU', null)}.
   * Column names are left out (they are the same in every row: the samples print them once).
   */
  static String of(Object[] row, int[] columns) {
    StringBuilder out = new StringBuilder(12 * columns.length).append('(');
    for (int i = 0; i < columns.length; i++) {
      if (i > 0) {
        out.append(", ");
      }
      value(out, row[columns[i]]);
    }
    return out.append(')').toString();
  }

  private static void value(StringBuilder out, Object v) {
    if (v == null) {
      out.append("null");
    } else if (v instanceof String s) {
      quoted(out, s);
    } else if (v instanceof Double d) {
      out.append(normalized(d));
    } else if (v instanceof Float f) {
      out.append(normalized(f.doubleValue())).append('f');
    } else if (v instanceof BigDecimal d) {
      out.append(d.toPlainString());
    } else if (v instanceof byte[] b) {
      out.append("x'").append(HEX.formatHex(b)).append('\'');
    } else if (v instanceof Object[] struct) {
      out.append('{');
      for (int i = 0; i < struct.length; i++) {
        out.append(i > 0 ? ", " : "");
        value(out, struct[i]);
      }
      out.append('}');
    } else if (v instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        out.append(i > 0 ? ", " : "");
        value(out, list.get(i));
      }
      out.append(']');
    } else if (v instanceof Map<?, ?> map) {
      // entries sorted by their text: two maps with the same entries are equal in any order
      List<String> entries = new ArrayList<>(map.size());
      for (Map.Entry<?, ?> e : map.entrySet()) {
        StringBuilder entry = new StringBuilder();
        value(entry, e.getKey());
        entry.append(" -> ");
        value(entry, e.getValue());
        entries.add(entry.toString());
      }
      Collections.sort(entries);
      out.append("map(").append(String.join(", ", entries)).append(')');
    } else if (v instanceof java.time.temporal.Temporal) {
      // Instant, LocalDate, LocalDateTime: ISO text, unambiguous per column type
      out.append('@').append(v);
    } else {
      // Byte, Short, Integer, Long, Boolean
      out.append(v);
    }
  }

  private static String normalized(double d) {
    if (Double.isNaN(d)) {
      return "NaN";
    }
    return Double.toString(d == 0.0 ? 0.0 : d);
  }

  private static void quoted(StringBuilder out, String s) {
    out.append('\'');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\'' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('\'');
  }
}
