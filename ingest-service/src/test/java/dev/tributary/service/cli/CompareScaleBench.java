package dev.tributary.service.cli;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.Map;

/**
 * Not a test: measures {@code tributary compare} over two tables of N rows (default 3,000,000; B
 * differs from A in 10 rows) made by our writer, in the heap it is started with (run it with
 * -Xmx512m, the default heap of ./tributary). Prints the command's output, the time and the peak
 * heap used. Arguments: a folder (the tables are made there once), N, and {@code whole-rows} to
 * compare without {@code --key id}.
 */
public final class CompareScaleBench {
  private CompareScaleBench() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    long n = args.length > 1 ? Long.parseLong(args[1]) : 3_000_000L;
    String a = table(dir.resolve("a"), n, false);
    String b = table(dir.resolve("b"), n, true);
    long start = System.nanoTime();
    String[] command =
        args.length > 2 && args[2].equals("whole-rows")
            ? new String[] {"compare", a, b}
            : new String[] {"compare", a, b, "--key", "id"};
    int code = Main.run(command, System.out, System.err);
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.printf(
        "exit %d, %d rows a side, %.1f s, peak heap %d MB of max %d MB%n",
        code,
        n,
        (System.nanoTime() - start) / 1e9,
        peak >> 20,
        Runtime.getRuntime().maxMemory() >> 20);
  }

  private static String table(Path path, long n, boolean changed) throws Exception {
    StructType schema =
        StructType.of(
            StructField.nullable("id", PrimitiveType.LONG),
            StructField.nullable("name", PrimitiveType.STRING),
            StructField.nullable("amount", PrimitiveType.DOUBLE));
    try (ObjectStore store = ObjectStores.open(path.toString(), null)) {
      DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
      if (table.exists()) {
        return path.toString();
      }
      table.create(schema, java.util.List.of(), Map.of());
      try (AppendTransaction tx = table.newAppend(new TransactionId("bench", 0))) {
        for (long id = 0; id < n; id++) {
          String name = changed && id % (n / 10) == 0 ? "changed" : "customer-" + (id % 100_000);
          tx.write(new Object[] {id, name, id * 0.25});
        }
        tx.commit(Map.of());
      }
    }
    return path.toString();
  }
}
