package dev.tributary.table.stream;

import dev.tributary.table.TableErrors;
import dev.tributary.table.log.Action;
import dev.tributary.table.log.AddFile;
import dev.tributary.table.log.CommitInfo;
import dev.tributary.table.log.Metadata;
import dev.tributary.table.log.Protocol;
import dev.tributary.table.log.ProtocolSupport;
import dev.tributary.table.log.RemoveFile;
import dev.tributary.table.log.SchemaJson;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides what a stream reads of one commit, following Delta's {@code
 * DeltaSource.validateCommitAndDecideSkipping} and {@code filterAndGetIndexedFiles}:
 *
 * <ul>
 *   <li>only {@code add} actions with {@code dataChange: true} are read; a commit whose actions all
 *       have {@code dataChange: false} (our compaction, Spark's OPTIMIZE) yields nothing, so no row
 *       is read twice;
 *   <li>a {@code remove} with {@code dataChange: true} in a commit that also adds data fails the
 *       stream unless {@code skipChangeCommits} (then the whole commit is skipped); in a commit
 *       that only removes, it fails unless {@code ignoreDeletes} or {@code skipChangeCommits};
 *   <li>a {@code metaData} action whose schema the read schema cannot read, or whose partition
 *       columns differ, stops the stream ({@link SchemaCheck});
 *   <li>a {@code protocol} or {@code metaData} that needs a reader feature we lack (deletion
 *       vectors, column mapping, ...) is refused ({@link ProtocolSupport#checkReadable}).
 * </ul>
 */
final class CommitRules {
  private final String location;
  private final ChangeOptions options;
  private final StructType readSchema;
  private final List<String> readPartitionColumns;
  private final long readSchemaVersion;

  CommitRules(
      String location,
      ChangeOptions options,
      StructType readSchema,
      List<String> readPartitionColumns,
      long readSchemaVersion) {
    this.location = location;
    this.options = options;
    this.readSchema = readSchema;
    this.readPartitionColumns = List.copyOf(readPartitionColumns);
    this.readSchemaVersion = readSchemaVersion;
  }

  /**
   * The data-changing files of commit {@code version} the stream reads, in commit order.
   *
   * @param currentProtocol the table's protocol, for a commit that changes only its metadata
   * @param currentMetadata the table's metadata, for a commit that changes only its protocol
   * @throws dev.tributary.table.TableException if the commit stops the stream
   */
  List<AddFile> filesToRead(
      long version, List<Action> actions, Protocol currentProtocol, Metadata currentMetadata) {
    List<AddFile> adds = new ArrayList<>();
    String removed = null;
    Metadata metadata = null;
    Protocol protocol = null;
    String operation = "unknown operation";
    for (Action a : actions) {
      if (a instanceof AddFile add && add.dataChange()) {
        adds.add(add);
      } else if (a instanceof RemoveFile remove && remove.dataChange()) {
        removed = removed == null ? remove.path() : removed;
      } else if (a instanceof Metadata m) {
        metadata = m;
      } else if (a instanceof Protocol p) {
        protocol = p;
      } else if (a instanceof CommitInfo info
          && info.values().get("operation") instanceof String op) {
        operation = op;
      }
    }
    if (protocol != null || metadata != null) {
      ProtocolSupport.checkReadable(
          location,
          version,
          protocol != null ? protocol : currentProtocol,
          metadata != null ? metadata : currentMetadata);
    }
    if (metadata != null) {
      checkMetadata(version, metadata);
    }
    if (removed != null) {
      if (options.skipChangeCommits()) {
        return List.of();
      }
      if (!adds.isEmpty() || !options.ignoreDeletes()) {
        throw SourceErrors.dataRemoved(location, version, operation, removed, !adds.isEmpty());
      }
    }
    return adds;
  }

  /**
   * Checks a {@code metaData} (of a commit, or of the snapshot a stream starts from) against the
   * read schema and partitioning.
   */
  void checkMetadata(long version, Metadata metadata) {
    if (!metadata.partitionColumns().equals(readPartitionColumns)) {
      throw SourceErrors.partitioningChanged(
          location, version, readPartitionColumns, metadata.partitionColumns());
    }
    StructType committed;
    try {
      committed = SchemaJson.parse(metadata.schemaString());
    } catch (IllegalArgumentException e) {
      throw TableErrors.unsupported(
          location,
          "the schema at version " + version + " (" + e.getMessage() + ")",
          "Tributary reads only tables whose columns it can represent.");
    }
    Optional<String> problem =
        SchemaCheck.problem(readSchema, committed, version <= readSchemaVersion);
    if (problem.isPresent()) {
      throw SourceErrors.schemaChanged(location, version, problem.get());
    }
  }
}
