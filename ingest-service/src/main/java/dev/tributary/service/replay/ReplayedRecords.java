package dev.tributary.service.replay;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The records one replay run took out of the quarantine, in the text its sink commit records in
 * {@code commitInfo} ({@link QuarantineReplay#RECORDS_KEY}), so that a run interrupted after that
 * commit can be completed from the sink alone.
 *
 * <p>Format: partitions separated by {@code ;}, each {@code topic:partition=} followed by its
 * offsets in ascending order as comma-separated values and ranges ({@code first-last}, both
 * included). Example: {@code orders:0=5,7-9;orders:1=3}. Kafka topic names use only {@code
 * [a-zA-Z0-9._-]}, so the separators cannot occur in one; the text is empty for no records.
 */
public final class ReplayedRecords {
  private ReplayedRecords() {}

  /** The text of {@code records} (any order, duplicates ignored). */
  public static String encode(Iterable<RecordKey> records) {
    Map<String, NavigableSet<Long>> byPartition = new TreeMap<>();
    for (RecordKey r : records) {
      byPartition
          .computeIfAbsent(r.topic() + ":" + r.partition(), p -> new TreeSet<>())
          .add(r.offset());
    }
    StringBuilder out = new StringBuilder();
    byPartition.forEach(
        (partition, offsets) -> {
          if (out.length() > 0) {
            out.append(';');
          }
          out.append(partition).append('=');
          appendRanges(offsets, out);
        });
    return out.toString();
  }

  private static void appendRanges(NavigableSet<Long> offsets, StringBuilder out) {
    Iterator<Long> it = offsets.iterator();
    long first = it.next();
    long last = first;
    boolean any = false;
    while (it.hasNext()) {
      long next = it.next();
      if (next == last + 1) {
        last = next;
        continue;
      }
      any = appendRange(first, last, any, out);
      first = next;
      last = next;
    }
    appendRange(first, last, any, out);
  }

  private static boolean appendRange(long first, long last, boolean any, StringBuilder out) {
    if (any) {
      out.append(',');
    }
    out.append(first);
    if (last > first) {
      out.append('-').append(last);
    }
    return true;
  }

  /**
   * The records of a text {@link #encode} made, in ascending order.
   *
   * @throws IllegalArgumentException naming the part that is not in the format
   */
  public static List<RecordKey> decode(String text) {
    List<RecordKey> out = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    for (String part : text.split(";")) {
      int eq = part.lastIndexOf('=');
      int colon = eq < 0 ? -1 : part.lastIndexOf(':', eq);
      if (colon <= 0) {
        throw new IllegalArgumentException("not topic:partition=offsets: '" + part + "'");
      }
      String topic = part.substring(0, colon);
      try {
        int partition = Integer.parseInt(part.substring(colon + 1, eq));
        for (String range : part.substring(eq + 1).split(",")) {
          int dash = range.indexOf('-', 1);
          long first = Long.parseLong(dash < 0 ? range : range.substring(0, dash));
          long last = dash < 0 ? first : Long.parseLong(range.substring(dash + 1));
          for (long o = first; o <= last; o++) {
            out.add(new RecordKey(topic, partition, o));
          }
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not topic:partition=offsets: '" + part + "'", e);
      }
    }
    return out;
  }
}
