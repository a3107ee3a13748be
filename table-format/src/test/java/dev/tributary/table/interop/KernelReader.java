package dev.tributary.table.interop;

import dev.tributary.storage.ObjectStore;
import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.Table;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads a table with Delta Kernel's DefaultEngine, the independent reader of the interop ITs (and,
 * through the test-jar, of ingest-service's integration tests).
 */
public final class KernelReader {
  final Engine engine;
  final Snapshot snapshot;

  /** Opens the latest snapshot of the table rooted at {@code store}. */
  public KernelReader(ObjectStore store) {
    engine = DefaultEngine.create(new ObjectStoreFileIO(store));
    snapshot = Table.forPath(engine, ObjectStoreFileIO.ROOT).getLatestSnapshot(engine);
  }

  /** The latest txn version of {@code appId}, as Kernel reads it. */
  public Optional<Long> transactionVersion(String appId) {
    return snapshot.getLatestTransactionVersion(engine, appId);
  }

  /**
   * The table's column names, as Kernel reads the schema (the order of {@link #rows()}' values).
   */
  public List<String> columnNames() {
    return snapshot.getSchema().fieldNames();
  }

  /**
   * Every row, as Java values of our type model (nested structs as Object[], arrays as lists, maps
   * as insertion-ordered maps).
   */
  public List<Object[]> rows() throws IOException {
    Scan scan = snapshot.getScanBuilder().build();
    Row scanState = scan.getScanState(engine);
    StructType physicalSchema = ScanStateRow.getPhysicalDataReadSchema(scanState);
    List<Object[]> rows = new ArrayList<>();
    try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(engine)) {
      while (files.hasNext()) {
        try (CloseableIterator<Row> fileRows = files.next().getRows()) {
          while (fileRows.hasNext()) {
            Row scanFile = fileRows.next();
            FileStatus status = InternalScanFileUtils.getAddFileStatus(scanFile);
            CloseableIterator<ColumnarBatch> physical =
                engine
                    .getParquetHandler()
                    .readParquetFiles(
                        Utils.singletonCloseableIterator(status), physicalSchema, Optional.empty())
                    .map(r -> r.getData());
            try (CloseableIterator<FilteredColumnarBatch> data =
                Scan.transformPhysicalData(engine, scanState, scanFile, physical)) {
              while (data.hasNext()) {
                collect(data.next(), rows);
              }
            }
          }
        }
      }
    }
    return rows;
  }

  private static void collect(FilteredColumnarBatch batch, List<Object[]> out) {
    ColumnarBatch data = batch.getData();
    Optional<ColumnVector> selection = batch.getSelectionVector();
    for (int r = 0; r < data.getSize(); r++) {
      if (selection.isPresent()
          && (selection.get().isNullAt(r) || !selection.get().getBoolean(r))) {
        continue;
      }
      Object[] row = new Object[data.getSchema().length()];
      for (int c = 0; c < row.length; c++) {
        row[c] = value(data.getColumnVector(c), r);
      }
      out.add(row);
    }
  }

  private static Object value(ColumnVector v, int r) {
    if (v.isNullAt(r)) {
      return null;
    }
    DataType t = v.getDataType();
    if (t instanceof LongType) {
      return v.getLong(r);
    } else if (t instanceof StringType) {
      return v.getString(r);
    } else if (t instanceof IntegerType) {
      return v.getInt(r);
    } else if (t instanceof DoubleType) {
      return v.getDouble(r);
    } else if (t instanceof BooleanType) {
      return v.getBoolean(r);
    } else if (t instanceof TimestampType) {
      long micros = v.getLong(r);
      return Instant.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000);
    } else if (t instanceof DateType) {
      return LocalDate.ofEpochDay(v.getInt(r));
    } else if (t instanceof BinaryType) {
      return v.getBinary(r);
    } else if (t instanceof DecimalType) {
      return v.getDecimal(r);
    } else if (t instanceof ByteType) {
      return v.getByte(r);
    } else if (t instanceof ShortType) {
      return v.getShort(r);
    } else if (t instanceof FloatType) {
      return v.getFloat(r);
    } else if (t instanceof TimestampNTZType) {
      long micros = v.getLong(r);
      return LocalDateTime.ofEpochSecond(
          Math.floorDiv(micros, 1_000_000L),
          (int) Math.floorMod(micros, 1_000_000L) * 1000,
          ZoneOffset.UTC);
    } else if (t instanceof ArrayType) {
      ArrayValue array = v.getArray(r);
      List<Object> out = new ArrayList<>();
      for (int i = 0; i < array.getSize(); i++) {
        out.add(value(array.getElements(), i));
      }
      return Collections.unmodifiableList(out);
    } else if (t instanceof MapType) {
      MapValue map = v.getMap(r);
      Map<Object, Object> out = new LinkedHashMap<>();
      for (int i = 0; i < map.getSize(); i++) {
        out.put(value(map.getKeys(), i), value(map.getValues(), i));
      }
      return Collections.unmodifiableMap(out);
    } else if (t instanceof StructType s) {
      Object[] nested = new Object[s.length()];
      for (int i = 0; i < nested.length; i++) {
        nested[i] = value(v.getChild(i), r);
      }
      return nested;
    }
    throw new IllegalStateException("unexpected Kernel type " + t);
  }
}
