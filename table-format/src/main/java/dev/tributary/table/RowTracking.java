package dev.tributary.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.DomainMetadata;
import dev.tributary.table.log.TableState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Fresh row ids and row commit versions for the files a commit adds to a table that supports {@code
 * rowTracking} (PROTOCOL.md, "Row Tracking"): each new file's {@code baseRowId} starts after the
 * high-water mark (the {@code delta.rowTracking} domain's {@code rowIdHighWaterMark}), files take
 * consecutive ranges by their {@code numRecords}, each gets the commit's version as {@code
 * defaultRowCommitVersion}, and the commit carries the new high-water mark. Assigned again on every
 * attempt of a commit, on top of the state that attempt commits after, so a concurrent writer's ids
 * are never reused. Files that rearrange rows ({@code dataChange=false}) would need their row ids
 * materialized, which Tributary does not do: compaction and merge refuse such tables.
 */
final class RowTracking {
  static final String FEATURE = "rowTracking";
  static final String DOMAIN = "delta.rowTracking";
  private static final ObjectMapper JSON = new ObjectMapper();

  private RowTracking() {}

  /** True if the table supports row tracking: every commit must assign row ids. */
  static boolean supported(TableState state) {
    return state.protocol().writerFeatures().contains(FEATURE);
  }

  /** The high-water mark of the state: the highest row id assigned so far, -1 for none. */
  static long highWaterMark(TableState state) {
    DomainMetadata d = state.domains().get(DOMAIN);
    if (d == null) {
      return -1;
    }
    try {
      return JSON.readTree(d.configuration()).path("rowIdHighWaterMark").asLong(-1);
    } catch (IOException e) {
      throw new TableException(
          "The row tracking high-water mark of a Delta table is not JSON: " + d.configuration());
    }
  }

  /**
   * The file actions with fresh row ids and commit versions for the new files, and the new
   * high-water mark; unchanged when the table does not support row tracking or nothing is added.
   *
   * @param state the state the commit goes on top of
   * @param version the version the commit is attempted at
   */
  static List<Action> assign(TableState state, long version, List<Action> fileActions) {
    if (!supported(state)) {
      return fileActions;
    }
    long mark = highWaterMark(state);
    long next = mark + 1;
    List<Action> out = new ArrayList<>(fileActions.size() + 1);
    for (Action a : fileActions) {
      if (a instanceof AddFile add && add.dataChange() && add.baseRowId() == null) {
        out.add(add.withRowTracking(next, version));
        next += numRecords(add);
      } else {
        out.add(a);
      }
    }
    if (next - 1 > mark) {
      out.add(new DomainMetadata(DOMAIN, "{\"rowIdHighWaterMark\":" + (next - 1) + "}", false));
    }
    return out;
  }

  private static long numRecords(AddFile add) {
    JsonNode n = null;
    try {
      n = add.stats() == null ? null : JSON.readTree(add.stats()).get("numRecords");
    } catch (IOException e) {
      // below
    }
    if (n == null || !n.canConvertToLong()) {
      throw new IllegalStateException(
          "file " + add.path() + " has no numRecords statistic; row ids cannot be assigned");
    }
    return n.asLong();
  }
}
