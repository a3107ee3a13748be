package dev.tributary.table;

import dev.tributary.table.data.DataFiles;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import dev.tributary.table.dv.DeletionVectors;
import dev.tributary.table.dv.RoaringBitmapArray;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.StatsJson;
import dev.tributary.table.log.TableState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The deletion-vector half of a merge ({@link MergeSpec.Strategy#DELETION_VECTORS}): marks the
 * replaced and deleted rows of each touched file instead of copying the others.
 *
 * <p>Per touched file, the new vector is the union of the file's current vector (if any) and the
 * rows the merge replaces; all new vectors of one merge go into ONE deletion vector file (written
 * with a single {@code put} before the commit, an orphan for vacuum if the commit never lands). The
 * commit then carries, per file, {@code remove} of the logical file as it was (its old vector
 * included) and {@code add} of the same path with the new vector, both {@code dataChange=true}, the
 * add's stats unchanged but for {@code "tightBounds":false}. A file whose every row is marked is
 * only removed. A concurrent commit that removes one of these paths (compaction, another merge)
 * conflicts with ours through the remove, exactly as for copy-on-write.
 */
final class DeletionVectorMarks {
  private DeletionVectorMarks() {}

  /**
   * What marking produced.
   *
   * @param removed logical files the commit removes (every touched file, as it was)
   * @param readded the touched files that keep live rows, with their new vector
   * @param dropped the touched files that keep no live row (removed, not re-added)
   * @param vectorsAdded files that had no vector before
   * @param vectorsUpdated files whose vector grew
   * @param rowsMarked rows newly marked deleted
   */
  record Marked(
      List<AddFile> removed,
      List<AddFile> readded,
      List<AddFile> dropped,
      int vectorsAdded,
      int vectorsUpdated,
      long rowsMarked) {
    Marked {
      removed = List.copyOf(removed);
      readded = List.copyOf(readded);
      dropped = List.copyOf(dropped);
    }
  }

  /**
   * Marks {@code positions} (physical row indexes, per data file path) deleted in the files of
   * {@code snapshot}, writing the deletion vector file.
   *
   * @throws IllegalStateException if a position is beyond the file's rows or already deleted: the
   *     key index is out of step with the file (nothing is written)
   */
  static Marked mark(
      DeltaTable table, Snapshot snapshot, Map<String, ? extends Collection<Long>> positions)
      throws IOException {
    Map<String, AddFile> live = snapshot.state().files();
    List<AddFile> removed = new ArrayList<>();
    List<AddFile> keeping = new ArrayList<>();
    List<Long> counts = new ArrayList<>(); // numRecords of each file in keeping
    List<AddFile> dropped = new ArrayList<>();
    List<RoaringBitmapArray> bitmaps = new ArrayList<>();
    int added = 0;
    int updated = 0;
    long marked = 0;
    for (Map.Entry<String, ? extends Collection<Long>> e : positions.entrySet()) {
      AddFile add = live.get(e.getKey());
      // the protocol requires numRecords with a vector: from the stats, else from the footer
      long records = StatsJson.numRecords(add.stats());
      if (records < 0) {
        records = DataFiles.rowCount(table.store(), add.path());
      }
      RoaringBitmapArray rows =
          add.deletionVector() == null
              ? new RoaringBitmapArray()
              : DeletionVectors.load(table.store(), add.deletionVector());
      for (long position : e.getValue()) {
        if (rows.contains(position) || position >= records) {
          throw new IllegalStateException(
              "key index of Delta table at "
                  + table.location()
                  + " is out of step with data file "
                  + add.path()
                  + ": row "
                  + position
                  + (rows.contains(position)
                      ? " is already deleted by its deletion vector"
                      : " is beyond its " + records + " rows")
                  + "; nothing was committed. Retry the merge (a new table handle re-reads the"
                  + " keys).");
        }
        rows.add(position);
        marked++;
      }
      removed.add(add);
      if (rows.cardinality() >= records) {
        dropped.add(add); // no live row left: the file goes, no vector needed
        continue;
      }
      keeping.add(add);
      counts.add(records);
      bitmaps.add(rows);
      if (add.deletionVector() == null) {
        added++;
      } else {
        updated++;
      }
    }
    List<AddFile> readded = new ArrayList<>();
    if (!bitmaps.isEmpty()) {
      // no random prefix: Delta writes one only when asked to (randomizeFilePrefixes)
      List<DeletionVectorDescriptor> vectors = DeletionVectors.write(table.store(), "", bitmaps);
      for (int i = 0; i < keeping.size(); i++) {
        AddFile old = keeping.get(i);
        readded.add(
            new AddFile(
                old.path(),
                old.partitionValues(),
                old.size(),
                old.modificationTime(),
                true /* dataChange */,
                StatsJson.withWideBounds(old.stats(), counts.get(i)),
                old.tags(),
                vectors.get(i),
                old.baseRowId(),
                old.defaultRowCommitVersion()));
      }
    }
    return new Marked(removed, readded, dropped, added, updated, marked);
  }

  /**
   * Makes {@code txn}'s commit turn deletion vectors on for the table of {@code state} if they are
   * not on yet: the protocol gets the {@value ProtocolSupport#DELETION_VECTORS} reader-writer
   * feature (reader 3 / writer 7) and the metadata {@value
   * ProtocolSupport#ENABLE_DELETION_VECTORS}{@code =true}. Nothing if the table supports and
   * enables them already.
   *
   * @throws TableException if the table disables deletion vectors ({@code
   *     delta.enableDeletionVectors=false}) or has a legacy protocol Tributary cannot move to table
   *     features
   */
  static void enable(String location, TableState state, TableTransaction txn) {
    Protocol protocol = state.protocol();
    Metadata metadata = state.metadata();
    String property = metadata.configuration().get(ProtocolSupport.ENABLE_DELETION_VECTORS);
    if (property != null && !Boolean.parseBoolean(property)) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + location
              + " with deletion vectors: the table disables them ("
              + ProtocolSupport.ENABLE_DELETION_VECTORS
              + "="
              + property
              + "). Use merge-strategy: copy-on-write, or enable them (ALTER TABLE ... SET"
              + " TBLPROPERTIES ('"
              + ProtocolSupport.ENABLE_DELETION_VECTORS
              + "' = 'true')).");
    }
    if (protocol.supports(ProtocolSupport.DELETION_VECTORS) && property != null) {
      return;
    }
    Protocol upgraded;
    try {
      upgraded = protocol.withReaderWriterFeature(ProtocolSupport.DELETION_VECTORS);
    } catch (IllegalStateException e) {
      throw new TableException(
          "Cannot merge into Delta table at "
              + location
              + " with deletion vectors: "
              + e.getMessage()
              + ", and deletion vectors need reader 3 / writer 7 with the feature "
              + ProtocolSupport.DELETION_VECTORS
              + ". Use merge-strategy: copy-on-write, or enable them with Delta (ALTER TABLE ..."
              + " SET TBLPROPERTIES ('"
              + ProtocolSupport.ENABLE_DELETION_VECTORS
              + "' = 'true')).");
    }
    txn.changeTable(
        upgraded.equals(protocol) ? null : upgraded,
        Map.of(ProtocolSupport.ENABLE_DELETION_VECTORS, "true"));
  }
}
