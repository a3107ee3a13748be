package dev.tributary.service.backfill;

import dev.tributary.table.ReplaceRangeTransaction;
import java.util.List;
import java.util.Optional;

/**
 * What {@code backfill --replace} did, for the command's summary and the API.
 *
 * @param backfillId the backfill's id ({@code <id>/replace} is the swap's txn app id)
 * @param liveTable the live table whose range was replaced
 * @param rule which rows the range holds ({@link RowSelector#describe()})
 * @param version the live table's version holding the swap
 * @param stagingTable the staging table, inside the live table's folder: its data files are now the
 *     live table's too, never delete it
 * @param staging the staging run's summary; empty when the swap was already committed before this
 *     run (nothing was done)
 * @param swap what the swap commit did; empty when it was already committed
 * @param attempts swap plans made (more than one after concurrent commits in the range)
 * @param edges windows left alone at the range's ends
 */
public record ReplaceSummary(
    String backfillId,
    String liveTable,
    String rule,
    long version,
    String stagingTable,
    Optional<BackfillSummary> staging,
    Optional<ReplaceRangeTransaction.Metrics> swap,
    int attempts,
    List<EdgeWindows.EdgeWindow> edges) {

  public ReplaceSummary {
    edges = List.copyOf(edges);
  }

  /** Whether the swap was found committed by an earlier run (this one changed nothing). */
  public boolean alreadySwapped() {
    return swap.isEmpty();
  }

  /** The summary as the command prints it. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append("backfill ").append(backfillId).append(" --replace\n");
    out.append("  live table  ").append(liveTable).append(" (version ").append(version);
    out.append(")\n");
    out.append("  rows        ").append(rule).append('\n');
    if (swap.isEmpty()) {
      out.append("  already swapped by an earlier run of this command: nothing done\n");
    } else {
      ReplaceRangeTransaction.Metrics m = swap.get();
      out.append("  removed     ").append(m.rowsRemoved()).append(" rows (");
      out.append(m.filesRemoved()).append(" files removed whole, ");
      out.append(m.filesRewritten()).append(" rewritten keeping ").append(m.rowsKept());
      out.append(" rows outside the range)\n");
      out.append("  added       ").append(m.rowsAdded()).append(" rows in ");
      out.append(m.filesAdded()).append(" files, one commit");
      out.append(attempts > 1 ? " (planned " + attempts + " times: concurrent commits)" : "");
      out.append('\n');
    }
    if (edges.isEmpty()) {
      out.append("  edge windows none (the range's ends fall on window boundaries)\n");
    } else {
      out.append("  edge windows left alone, as the live run wrote them (each holds events");
      out.append(" outside the range):\n");
      edges.forEach(e -> out.append("    ").append(e).append('\n'));
    }
    staging.ifPresent(
        s ->
            out.append("  staging run ")
                .append(s.batches())
                .append(" batches, read ")
                .append(s.read())
                .append('\n'));
    out.append("  staging     ").append(stagingTable);
    out.append(" (its data files are now the live table's: never delete it)\n");
    staging.ifPresent(
        s ->
            out.append("  checkpoint  ")
                .append(s.checkpoint())
                .append(" (the backfill's own; delete it when done)"));
    return out.toString().stripTrailing();
  }
}
