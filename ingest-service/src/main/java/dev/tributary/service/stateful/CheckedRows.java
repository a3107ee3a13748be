package dev.tributary.service.stateful;

import dev.tributary.service.engine.BatchOutputs;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.table.data.RowChecks;
import java.io.IOException;
import java.util.List;
import java.util.function.Predicate;

/**
 * What stands between a stateless row and the stateful operators, shared by the single-instance
 * processor ({@link StatefulProcessor}) and stage 1 of group mode ({@link ExchangeFront}): the
 * joins (none, one or several rows per record), then the input checks on every joined row, and, for
 * a row that may be written to the late-events table, that table's checks. A problem sets the whole
 * record aside; a record without a joined row is counted as filtered.
 */
final class CheckedRows {
  private final StatelessProcessor stateless;
  private final InputChecks inputChecks;
  private final RowChecks lateRows;

  /**
   * How a row that cannot enter state is set aside: its record or source row goes to quarantine.
   */
  interface SetAside {
    void quarantine(String problem) throws IOException;
  }

  /**
   * @param stateless the stateless steps whose joins run here; null for rows joined before (the
   *     exchange)
   */
  CheckedRows(StatelessProcessor stateless, StatefulPlan plan) {
    this.stateless = stateless;
    this.inputChecks = new InputChecks(plan, plan.partitionColumns());
    this.lateRows = RowChecks.forTable(plan.inputSchema(), List.of());
  }

  /**
   * The joined, checked rows of {@code row} (from {@link StatelessProcessor#toRow}); null when the
   * record gave none (counted as filtered) or was set aside (quarantined by {@code setAside}).
   *
   * @param mayBeWrittenLate whether a joined row may go whole to the late-events table, which then
   *     checks it too
   */
  List<Object[]> check(
      Object[] row, BatchOutputs outputs, Predicate<Object[]> mayBeWrittenLate, SetAside setAside)
      throws IOException {
    // The join runs before the watermark: a record gives no row (an inner join without a match),
    // one, or one per matching dimension row, and each goes through the operators.
    // A row of the repartition topic (stage 2 of group mode, no stateless steps) was joined in
    // stage 1.
    List<Object[]> rows = stateless == null ? List.<Object[]>of(row) : stateless.join(row);
    if (rows.isEmpty()) {
      outputs.countFiltered();
      return null;
    }
    // Every row is checked before the first enters state: afterwards the record cannot be set aside
    // alone.
    for (Object[] joined : rows) {
      String problem = inputChecks.problem(joined);
      if (problem == null && mayBeWrittenLate.test(joined)) {
        // A late row goes whole to the late-events table, so all of it must be writable (the input
        // checks only cover what reaches state or the sink). Checked now: an aggregation drops it
        // after deduplication, when this record is no longer the one at hand.
        problem = lateRows.problem(joined);
      }
      if (problem != null) {
        setAside.quarantine(problem);
        return null;
      }
    }
    return rows;
  }
}
