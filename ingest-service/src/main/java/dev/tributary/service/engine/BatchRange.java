package dev.tributary.service.engine;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.checkpoint.SourcePartition;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The input of one batch as the checkpoint's offsets log records it, opaque to the engine: only the
 * {@link Source} that planned it interprets it. A source keeps offsets per partition in {@code
 * offsets} (Kafka) and anything else in {@code facts} (a Delta source: its from/to positions; any
 * source: the partitions it left behind). The engine writes both into the batch's {@link
 * OffsetsEntry} (ranges and extras) before it reads anything and hands the same range back to the
 * source on replay, so the on-disk form is the offsets entry's and needs no format of its own.
 *
 * @param offsets offsets {@code [start, end)} per partition; every partition the source owns, empty
 *     ranges included (the latest entry is where the next batch starts); empty for a source without
 *     offsets
 * @param facts string facts of the range; the source's own keys only when planned, all of the
 *     offsets entry's extras when read back (a source ignores keys it does not know)
 */
public record BatchRange(Map<SourcePartition, OffsetRange> offsets, Map<String, String> facts) {
  /**
   * Fact key: the partitions the range leaves input behind on, {@code topic/partition,...}, sorted.
   */
  public static final String BACKLOGGED = "backlogged";

  /**
   * Fact key: input the source could no longer read when it planned the range (a source configured
   * to tolerate that, e.g. Kafka's {@code fail-on-data-loss: false}), described for table history.
   */
  public static final String DATA_LOSS = "dataLoss";

  /** Copies both maps, sorted. */
  public BatchRange {
    offsets = Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
    facts = Collections.unmodifiableSortedMap(new TreeMap<>(facts));
  }

  /** The range a recorded batch read: its entry's ranges and extras. */
  public static BatchRange of(OffsetsEntry entry) {
    return new BatchRange(entry.ranges(), entry.extras());
  }

  /**
   * Where a checkpoint without batches starts: empty ranges at the given positions (a new
   * checkpoint continuing after a table's data), nothing else.
   */
  public static BatchRange startingAt(Map<SourcePartition, Long> positions) {
    Map<SourcePartition, OffsetRange> offsets = new TreeMap<>();
    positions.forEach((p, o) -> offsets.put(p, new OffsetRange(o, o)));
    return new BatchRange(offsets, Map.of());
  }

  /** The end offset per partition: where the batch after this one starts. */
  public Map<SourcePartition, Long> endOffsets() {
    Map<SourcePartition, Long> ends = new TreeMap<>();
    offsets.forEach((p, r) -> ends.put(p, r.end()));
    return ends;
  }

  /**
   * The partitions the range left input behind on ({@link #BACKLOGGED}); partition names may hold
   * '/' but not ','.
   */
  public Set<SourcePartition> backlogged() {
    String value = facts.get(BACKLOGGED);
    if (value == null || value.isEmpty()) {
      return Set.of();
    }
    Set<SourcePartition> out = new HashSet<>();
    for (String name : value.split(",")) {
      int slash = name.lastIndexOf('/');
      out.add(
          new SourcePartition(
              name.substring(0, slash), Integer.parseInt(name.substring(slash + 1))));
    }
    return out;
  }

  /** The {@link #BACKLOGGED} fact's value for a set of partitions: sorted, comma separated. */
  public static String backloggedValue(Set<SourcePartition> partitions) {
    StringBuilder out = new StringBuilder();
    new TreeSet<>(partitions)
        .forEach(
            p ->
                out.append(out.length() == 0 ? "" : ",")
                    .append(p.topic())
                    .append('/')
                    .append(p.partition()));
    return out.toString();
  }
}
