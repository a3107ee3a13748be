package dev.tributary.service.backfill;

import java.util.List;

/**
 * What a backfill did, for the command's summary.
 *
 * @param backfillId the backfill's id (the app id prefix of its txn actions)
 * @param target the table written
 * @param rule which rows it writes ({@link RowSelector#describe()})
 * @param batches the batches this process ran
 * @param rowsAdded rows this process wrote
 * @param rowsOutside rows computed but outside the range, not written
 * @param files the data files of the table after the run
 * @param version the table's version after the run
 * @param resumed whether the table already held commits of this backfill (an earlier run of the
 *     same command, interrupted or finished)
 * @param checkpoint the backfill's own checkpoint
 * @param read what was read (Kafka timestamps from --from minus the watermark delay to --to plus
 *     the delay, or the Delta source table)
 * @param edges windows left alone at the range's ends
 */
public record BackfillSummary(
    String backfillId,
    String target,
    String rule,
    int batches,
    long rowsAdded,
    long rowsOutside,
    int files,
    long version,
    boolean resumed,
    String checkpoint,
    String read,
    List<EdgeWindows.EdgeWindow> edges) {

  public BackfillSummary {
    edges = List.copyOf(edges);
  }

  /** The summary as the command prints it. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append("backfill ").append(backfillId).append(resumed ? " (resumed)" : "").append('\n');
    out.append("  into        ").append(target).append(" (version ").append(version);
    out.append(", ").append(files).append(" data files)\n");
    out.append("  rows        ").append(rule).append('\n');
    out.append("  read        ").append(read).append(" in ").append(batches).append(" batches\n");
    out.append("  rows added  ").append(rowsAdded).append('\n');
    out.append("  left out    ").append(rowsOutside).append(" rows outside the range\n");
    if (edges.isEmpty()) {
      out.append("  edge windows none (the range's ends fall on window boundaries)\n");
    } else {
      out.append("  edge windows left alone (each holds events outside the range):\n");
      edges.forEach(e -> out.append("    ").append(e).append('\n'));
    }
    out.append("  checkpoint  ").append(checkpoint);
    out.append(" (the backfill's own; a rerun of the same command continues it; delete it when");
    out.append(" done)");
    return out.toString();
  }
}
