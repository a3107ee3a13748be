package dev.tributary.table.data;

import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.types.DecimalType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * Takes the cost of a process's first data file off its first real write: about half a second of
 * class loading and static initialisation (Parquet's writer, footer and statistics, Hadoop's codec
 * lookup) that any first write pays. A stateful pipeline's first output comes only when a window
 * closes, after batches that leave a core idle for this.
 */
public final class WarmUp {
  private static final Set<DataWriteOptions.Codec> STARTED = ConcurrentHashMap.newKeySet();

  private static final StructType SAMPLE_SCHEMA =
      StructType.of(
          StructField.nullable("s", PrimitiveType.STRING),
              StructField.nullable("i", PrimitiveType.INTEGER),
          StructField.nullable("l", PrimitiveType.LONG),
              StructField.nullable("d", PrimitiveType.DOUBLE),
          StructField.nullable("b", PrimitiveType.BOOLEAN),
              StructField.nullable("t", PrimitiveType.TIMESTAMP),
          StructField.nullable("day", PrimitiveType.DATE),
              StructField.nullable("m", new DecimalType(10, 2)));

  private WarmUp() {}

  /**
   * Writes and deletes a one-row file of every common column type with {@code codec} on a
   * low-priority daemon thread. At most once per codec and process; a failure is ignored, since the
   * first real write reports it with its context.
   */
  public static void startInBackground(DataWriteOptions.Codec codec) {
    if (!STARTED.add(codec)) {
      return;
    }
    Thread thread = new Thread(() -> writeAndDeleteSample(codec), "tributary-parquet-warm-up");
    thread.setDaemon(true);
    thread.setPriority(Thread.MIN_PRIORITY);
    thread.start();
  }

  /** A real write through the real writer, to a temporary directory that is deleted after. */
  static void writeAndDeleteSample(DataWriteOptions.Codec codec) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("tributary-warm-up");
      try (ObjectStore store = ObjectStores.open(dir.toString(), null);
          PartitionedDataWriter writer =
              DataFiles.newWriter(
                  store,
                  SAMPLE_SCHEMA,
                  List.of(),
                  new DataWriteOptions(DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, codec))) {
        writer.write(
            new Object[] {
              "warm-up",
              1,
              1L,
              1.0,
              true,
              Instant.EPOCH,
              LocalDate.EPOCH,
              BigDecimal.ONE.setScale(2)
            });
        writer.finish();
      }
    } catch (Exception | LinkageError ignored) {
      // the first real write fails with the same cause, and a clear message
    } finally {
      deleteQuietly(dir);
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | RuntimeException ignored) {
      // a leftover temporary directory is harmless
    }
  }
}
