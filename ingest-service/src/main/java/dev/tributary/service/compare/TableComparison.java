package dev.tributary.service.compare;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Compares the rows of two tables as multisets, and optionally by key, in bounded memory.
 *
 * <p>How: every row is turned into its canonical text ({@link RowText}); rows are hashed (on the
 * key's text with a key, else on the whole row's) into P partition files on local disk, A's and B's
 * rows of one hash in the same partition; then each partition in turn is loaded into a hash map of
 * row text to its count in A and in B. Equal rows (and rows of one key) always land in the same
 * partition, so the partitions can be compared one at a time: memory holds one partition, P is
 * chosen from the inputs' estimated size and {@link CompareOptions#memoryBudget()}. A partition
 * larger than the estimate (many rows of one key) is still loaded whole.
 *
 * <p>Counts: a row text counted a times in A and b in B contributes max(0, a - b) to only-in-A and
 * max(0, b - a) to only-in-B, which is what {@code EXCEPT ALL} counts.
 */
public final class TableComparison {
  /**
   * In-memory cost of a row beyond its characters: the String, the hash map entry, the counts and,
   * with a key, the key's own map (measured: ~3 million distinct rows of 3 columns in a 512 MB
   * heap).
   */
  private static final long ENTRY_OVERHEAD = 200;

  private static final int MAX_PARTITIONS = 1024;
  private static final byte SIDE_A = 0;
  private static final byte SIDE_B = 1;

  private TableComparison() {}

  /** The rows of one side, read once. */
  public interface Rows {
    /** Hands every row (columns in the comparison's order) to {@code sink}. */
    void forEach(Consumer<Object[]> sink) throws IOException;

    /** The rows' estimated in-memory size in bytes, to choose the number of partitions. */
    long estimatedBytes();
  }

  /**
   * Compares {@code a} with {@code b}.
   *
   * @param columns the column names, in the order of the rows' values
   * @param key the key columns (a subset of {@code columns}), or empty for a comparison of whole
   *     rows only
   */
  public static ComparisonResult compare(
      Rows a, Rows b, List<String> columns, List<String> key, CompareOptions options)
      throws IOException {
    int[] all = new int[columns.size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    int[] keyColumns = key.stream().mapToInt(columns::indexOf).toArray();
    long estimate = a.estimatedBytes() + b.estimatedBytes();
    int partitions =
        (int) Math.max(1, Math.min(MAX_PARTITIONS, estimate / options.memoryBudget() + 1));
    Path spill = Files.createTempDirectory(options.spillDirectory(), "tributary-compare-");
    try {
      long[] counts = new long[2];
      try (Spill out = new Spill(spill, partitions)) {
        write(a, SIDE_A, all, keyColumns, out, counts);
        write(b, SIDE_B, all, keyColumns, out, counts);
      }
      Tally tally = new Tally(key, options.samples());
      for (int p = 0; p < partitions; p++) {
        tally.partition(Spill.file(spill, p), keyColumns.length > 0);
      }
      return tally.result(counts[SIDE_A], counts[SIDE_B]);
    } finally {
      deleteAll(spill);
    }
  }

  private static void write(
      Rows rows, byte side, int[] all, int[] keyColumns, Spill out, long[] counts)
      throws IOException {
    try {
      rows.forEach(
          row -> {
            String text = RowText.of(row, all);
            String key = keyColumns.length == 0 ? null : RowText.of(row, keyColumns);
            out.write(side, key, text);
            counts[side]++;
          });
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The partition files being written: one buffered stream each. */
  private static final class Spill implements AutoCloseable {
    private final DataOutputStream[] files;

    Spill(Path dir, int partitions) throws IOException {
      files = new DataOutputStream[partitions];
      for (int p = 0; p < partitions; p++) {
        files[p] =
            new DataOutputStream(
                new BufferedOutputStream(Files.newOutputStream(file(dir, p)), 8192));
      }
    }

    static Path file(Path dir, int partition) {
      return dir.resolve("part-" + partition);
    }

    /** Record: side byte, key (length -1 when none), row text, each as length + UTF-8. */
    void write(byte side, String key, String row) {
      String hashed = key == null ? row : key;
      int h = hashed.hashCode() * 0x9E3779B9;
      DataOutputStream out = files[Math.floorMod(h ^ (h >>> 16), files.length)];
      try {
        out.writeByte(side);
        bytes(out, key);
        bytes(out, row);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static void bytes(DataOutputStream out, String text) throws IOException {
      if (text == null) {
        out.writeInt(-1);
        return;
      }
      byte[] b = text.getBytes(StandardCharsets.UTF_8);
      out.writeInt(b.length);
      out.write(b);
    }

    @Override
    public void close() throws IOException {
      IOException first = null;
      for (DataOutputStream f : files) {
        try {
          f.close();
        } catch (IOException e) {
          first = first == null ? e : first;
        }
      }
      if (first != null) {
        throw first;
      }
    }
  }

  /** The counts over all partitions, and the samples. */
  private static final class Tally {
    private final List<String> key;
    private final int samples;
    private long onlyInA;
    private long onlyInB;
    private long keysOnlyInA;
    private long keysOnlyInB;
    private long changedKeys;
    private long duplicateKeysA;
    private long duplicateKeysB;
    private final List<String> samplesA = new ArrayList<>();
    private final List<String> samplesB = new ArrayList<>();
    private final List<ComparisonResult.Change> changes = new ArrayList<>();

    Tally(List<String> key, int samples) {
      this.key = key;
      this.samples = samples;
    }

    /** Loads one partition and counts its differences. */
    void partition(Path file, boolean keyed) throws IOException {
      // without a key: row text -> {count in A, count in B}; with one: key text -> its rows' counts
      Map<String, long[]> counts = new HashMap<>();
      Map<String, Map<String, long[]>> groups = new HashMap<>();
      try (DataInputStream in =
          new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 65536))) {
        while (true) {
          int side;
          try {
            side = in.readByte();
          } catch (EOFException end) {
            break;
          }
          String k = text(in);
          String row = text(in);
          Map<String, long[]> rows =
              keyed ? groups.computeIfAbsent(k, x -> new LinkedHashMap<>(2)) : counts;
          rows.computeIfAbsent(row, x -> new long[2])[side]++;
        }
      }
      // a stable order of the samples whatever the hash map's order
      List<String> keys = new ArrayList<>(keyed ? groups.keySet() : counts.keySet());
      keys.sort(Comparator.naturalOrder());
      for (String k : keys) {
        group(k, keyed ? groups.get(k) : Map.of(k, counts.get(k)), keyed);
      }
    }

    private void group(String k, Map<String, long[]> rows, boolean keyed) {
      long inA = 0;
      long inB = 0;
      String firstOnlyA = null;
      String firstOnlyB = null;
      for (Map.Entry<String, long[]> e : rows.entrySet()) {
        long[] c = e.getValue();
        inA += c[SIDE_A];
        inB += c[SIDE_B];
        if (c[SIDE_A] > c[SIDE_B]) {
          onlyInA += c[SIDE_A] - c[SIDE_B];
          sample(samplesA, e.getKey());
          firstOnlyA = firstOnlyA == null ? e.getKey() : firstOnlyA;
        } else if (c[SIDE_B] > c[SIDE_A]) {
          onlyInB += c[SIDE_B] - c[SIDE_A];
          sample(samplesB, e.getKey());
          firstOnlyB = firstOnlyB == null ? e.getKey() : firstOnlyB;
        }
      }
      if (!keyed) {
        return;
      }
      duplicateKeysA += inA > 1 ? 1 : 0;
      duplicateKeysB += inB > 1 ? 1 : 0;
      if (inB == 0) {
        keysOnlyInA++;
      } else if (inA == 0) {
        keysOnlyInB++;
      } else if (firstOnlyA != null || firstOnlyB != null) {
        changedKeys++;
        if (changes.size() < samples) {
          changes.add(new ComparisonResult.Change(k, firstOnlyA, firstOnlyB));
        }
      }
    }

    private void sample(List<String> list, String row) {
      if (list.size() < samples) {
        list.add(row);
      }
    }

    private static String text(DataInputStream in) throws IOException {
      int length = in.readInt();
      if (length < 0) {
        return null;
      }
      byte[] b = new byte[length];
      in.readFully(b);
      return new String(b, StandardCharsets.UTF_8);
    }

    ComparisonResult result(long rowsA, long rowsB) {
      Optional<ComparisonResult.KeyDifferences> byKey =
          key.isEmpty()
              ? Optional.empty()
              : Optional.of(
                  new ComparisonResult.KeyDifferences(
                      key,
                      keysOnlyInA,
                      keysOnlyInB,
                      changedKeys,
                      duplicateKeysA,
                      duplicateKeysB,
                      changes));
      return new ComparisonResult(rowsA, rowsB, onlyInA, onlyInB, samplesA, samplesB, byKey);
    }
  }

  /**
   * The estimated in-memory bytes of {@code rows} rows of {@code columns} columns, for {@link
   * Rows#estimatedBytes()}: a row's text at about 12 characters a column (2 bytes each in a Java
   * String at worst) plus the map entry.
   */
  public static long estimate(long rows, int columns) {
    return rows * (ENTRY_OVERHEAD + 24L * columns);
  }

  private static void deleteAll(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(dir);
  }
}
