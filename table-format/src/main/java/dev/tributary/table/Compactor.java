package dev.tributary.table;

import dev.tributary.storage.retry.RetryPolicy;
import dev.tributary.table.data.CloseableIterator;
import dev.tributary.table.data.DataFile;
import dev.tributary.table.data.DataFiles;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.data.PartitionedDataWriter;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.StatsJson;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bin-packing compaction. Per partition, the files smaller than the target size are, if there are
 * at least {@code minFiles} of them, sorted by size and packed greedily into bins of about the
 * target size; every bin of two or more files is rewritten. Files with a deletion vector are always
 * candidates, whatever their size or number, and a bin holding one is rewritten even alone: the
 * rewrite applies the vector (the deleted rows are not copied) and the new file has none, so the
 * vector's file becomes unreferenced for vacuum. All rewritten files are replaced in ONE commit of
 * {@code remove} + {@code add} actions, both with {@code dataChange=false}: the live rows do not
 * change, so streaming readers skip the commit.
 *
 * <p>The commit conflicts only if a concurrent commit removed one of our inputs; then the work is
 * planned again from a fresh snapshot (retry site {@value #RETRY_SITE}, bounded by the commit retry
 * policy's attempts). A concurrent append never conflicts and loses nothing: we remove only the
 * files we read.
 */
final class Compactor {
  private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

  /** The retry site of a compaction planned again after a conflict. */
  static final String RETRY_SITE = "delta.compact";

  private final DeltaTable table;

  Compactor(DeltaTable table) {
    this.table = table;
  }

  CompactionResult compact(CompactionOptions options) throws IOException {
    // A conflict means a concurrent commit removed one of our inputs: plan again at once from a
    // fresh snapshot, as often as a commit may be attempted.
    RetryPolicy replan =
        RetryPolicy.named(RETRY_SITE)
            .withMaxAttempts(table.options().commitRetry().maxAttempts())
            .retryingOn(CommitConflictException.class::isInstance);
    return replan.call(
        attempt -> {
          Snapshot snapshot = table.snapshot();
          if (RowTracking.supported(snapshot.state())) {
            throw new TableException(
                "Cannot compact Delta table at "
                    + table.location()
                    + ": it tracks row ids (table feature rowTracking), which rewritten files"
                    + " would have to keep; Tributary does not. Compact it with Delta's OPTIMIZE.");
          }
          List<List<DataFile>> bins = plan(snapshot, options);
          if (bins.isEmpty()) {
            return new CompactionResult(snapshot.version(), 0, 0, 0, 0, 0, attempt);
          }
          try {
            return rewrite(snapshot, bins, options, attempt);
          } catch (CommitConflictException e) {
            LOG.info(
                "Compaction of {} lost to a concurrent commit (attempt {}): {}",
                table.location(),
                attempt,
                e.getMessage());
            throw e;
          }
        });
  }

  static List<List<DataFile>> plan(Snapshot snapshot, CompactionOptions options) {
    Map<Map<String, String>, List<DataFile>> small = new LinkedHashMap<>();
    Map<Map<String, String>, Boolean> withVectors = new LinkedHashMap<>();
    for (DataFile f : snapshot.files()) {
      boolean vector = f.deletionVector() != null;
      if (vector) {
        withVectors.put(normalized(f.partitionValues(), snapshot.schema()), true);
      }
      if (f.size() < options.targetFileSize() || vector) {
        small
            .computeIfAbsent(
                normalized(f.partitionValues(), snapshot.schema()), k -> new ArrayList<>())
            .add(f);
      }
    }
    List<List<DataFile>> bins = new ArrayList<>();
    for (Map.Entry<Map<String, String>, List<DataFile>> partition : small.entrySet()) {
      List<DataFile> files = partition.getValue();
      if (files.size() < options.minFiles() && !withVectors.containsKey(partition.getKey())) {
        continue;
      }
      files.sort(Comparator.comparingLong(DataFile::size).thenComparing(DataFile::path));
      List<DataFile> bin = new ArrayList<>();
      long binBytes = 0;
      for (DataFile f : files) {
        if (!bin.isEmpty() && binBytes + f.size() > options.targetFileSize()) {
          addIfWorthIt(bins, bin);
          bin = new ArrayList<>();
          binBytes = 0;
        }
        bin.add(f);
        binBytes += f.size();
      }
      addIfWorthIt(bins, bin);
    }
    return bins;
  }

  /**
   * The partition values as this writer serializes them today, so that files of one partition
   * written with another spelling (older versions wrote timestamps as {@code 2026-01-01 00:00:00},
   * now {@code 2026-01-01T00:00:00.000000Z}) are compacted together.
   */
  private static Map<String, String> normalized(Map<String, String> values, StructType schema) {
    Map<String, String> out = new TreeMap<>();
    values.forEach(
        (column, text) -> {
          var field = schema.field(column);
          out.put(
              column,
              field.isEmpty()
                  ? text
                  : DataFiles.serializePartitionValue(
                      DataFiles.parsePartitionValue(text, field.get().type()), field.get().type()));
        });
    return out;
  }

  /** Two files or more become one; a file with a deletion vector alone is purged of its rows. */
  private static void addIfWorthIt(List<List<DataFile>> bins, List<DataFile> bin) {
    if (bin.size() >= 2 || bin.stream().anyMatch(f -> f.deletionVector() != null)) {
      bins.add(bin);
    }
  }

  private CompactionResult rewrite(
      Snapshot snapshot, List<List<DataFile>> bins, CompactionOptions options, int attempt)
      throws IOException {
    DataWriteOptions writeOptions =
        new DataWriteOptions(options.targetFileSize(), table.options().dataWriteOptions().codec());
    List<DataFile> inputs = new ArrayList<>();
    List<DataFile> outputs = new ArrayList<>();
    for (List<DataFile> bin : bins) {
      // One writer per bin: each bin becomes about one target-size file.
      try (PartitionedDataWriter writer =
          DataFiles.newWriter(
              table.store(),
              snapshot.columnMapping().physicalSchema(snapshot.schema()),
              snapshot.physicalPartitionColumns(),
              writeOptions)) {
        for (DataFile f : bin) {
          try (CloseableIterator<Object[]> rows =
              DataFiles.read(table.store(), f, snapshot.schema(), snapshot.columnMapping())) {
            while (rows.hasNext()) {
              writer.write(rows.next());
            }
          }
        }
        outputs.addAll(writer.finish());
      }
      inputs.addAll(bin);
    }
    checkRowCounts(inputs, outputs);
    long now = table.options().clock().millis();
    List<Action> actions = new ArrayList<>();
    Map<String, AddFile> live = snapshot.state().files();
    long bytesRemoved = 0;
    for (DataFile f : inputs) {
      actions.add(live.get(f.path()).toRemove(now, false /* dataChange */));
      bytesRemoved += f.size();
    }
    long bytesAdded = 0;
    for (DataFile f : outputs) {
      actions.add(
          new AddFile(
              f.path(),
              f.partitionValues(),
              f.size(),
              f.modificationTime(),
              false /* dataChange */,
              StatsJson.toJson(
                  f.stats(), snapshot.columnMapping().physicalSchema(snapshot.dataSchema())),
              Map.of()));
      bytesAdded += f.size();
    }
    CommitResult result =
        table.commit(
            snapshot.state(),
            null,
            actions,
            "OPTIMIZE",
            Map.of("compactedFiles", String.valueOf(inputs.size())),
            false);
    return new CompactionResult(
        result.tableVersion(),
        bins.size(),
        inputs.size(),
        outputs.size(),
        bytesRemoved,
        bytesAdded,
        attempt);
  }

  /** A rewrite that would change the row count must never be committed. */
  private void checkRowCounts(List<DataFile> inputs, List<DataFile> outputs) {
    long in = 0;
    long out = 0;
    for (DataFile f : inputs) {
      if (f.liveRows() < 0) {
        return; // an input without stats: nothing to compare against
      }
      in += f.liveRows(); // the rows its deletion vector deletes are not rewritten
    }
    for (DataFile f : outputs) {
      out += f.stats().numRecords();
    }
    if (in != out) {
      throw new TableException(
          "Compaction of Delta table at "
              + table.location()
              + " read "
              + in
              + " rows but wrote "
              + out
              + "; nothing was committed. This is a bug: report it with"
              + " the table's _delta_log.");
    }
  }
}
