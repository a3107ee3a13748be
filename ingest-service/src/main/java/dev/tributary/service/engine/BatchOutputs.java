package dev.tributary.service.engine;

import java.io.IOException;

/** Where a processor puts the rows of one batch; counts what went where. */
public final class BatchOutputs {
  private final TableSink.BatchWriter main;
  private final TableSink.BatchWriter quarantine;
  private long inputRows;
  private long filteredRows;
  private long lateRows;

  BatchOutputs(TableSink.BatchWriter main, TableSink.BatchWriter quarantine) {
    this.main = main;
    this.quarantine = quarantine;
  }

  public void output(Object[] row) throws IOException {
    main.write(row);
  }

  public void quarantine(Object[] row) throws IOException {
    quarantine.write(row);
  }

  public void countInput() {
    inputRows++;
  }

  public void countFiltered() {
    filteredRows++;
  }

  public void countLate() {
    lateRows++;
  }

  long inputRows() {
    return inputRows;
  }

  long filteredRows() {
    return filteredRows;
  }

  long lateRows() {
    return lateRows;
  }
}
