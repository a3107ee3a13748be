package dev.tributary.service.engine;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TransactionId;
import dev.tributary.table.log.SetTransaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * How one checkpoint of a pipeline names its batches in the Delta {@code txn} actions of its tables
 * (docs/DESIGN.md, "Exactly once"). Two kinds of app id, both starting with the pipeline id (ids
 * are {@code [a-z0-9-]+}, so {@code @} and {@code :} cannot occur in one):
 *
 * <ul>
 *   <li>{@code <pipeline>@<checkpoint id>}, version = batch id: the idempotency key. The checkpoint
 *       id is a random id kept in the checkpoint's metadata, so batch 0 of a new checkpoint is
 *       never mistaken for batch 0 of an old one. A checkpoint created before ids existed keeps the
 *       pipeline id alone as its key, so its tables stay valid.
 *   <li>{@code <pipeline>:<topic>:<partition>}, version = the next offset to read: where the data
 *       in the table ends, per input partition, committed atomically with that data. Shared by
 *       every checkpoint of the pipeline: the latest commit tells how far the table goes.
 * </ul>
 *
 * @param pipelineId the pipeline
 * @param checkpointId the checkpoint's id, empty for a checkpoint that predates ids
 */
public record TableTxns(String pipelineId, Optional<String> checkpointId) {
  public TableTxns {
    Objects.requireNonNull(pipelineId, "pipelineId");
    Objects.requireNonNull(checkpointId, "checkpointId");
  }

  /** The app id of this checkpoint's batches. */
  public String batchAppId() {
    return checkpointId.map(id -> pipelineId + "@" + id).orElse(pipelineId);
  }

  /** The tag of a batch with these planned ranges: its key and every partition's end offset. */
  public BatchTag tag(long batchId, Map<SourcePartition, OffsetRange> ranges) {
    List<TransactionId> positions = new ArrayList<>();
    new TreeMap<>(ranges)
        .forEach((p, r) -> positions.add(new TransactionId(positionAppId(p), r.end())));
    return new BatchTag(new TransactionId(batchAppId(), batchId), positions);
  }

  /**
   * The app id of a partition's position, {@code <pipeline>:<topic>:<partition>}: in consumer-group
   * mode also the fence a commit moves (docs/DESIGN.md, "Scale-out").
   */
  public String positionAppId(SourcePartition p) {
    return pipelineId + ":" + p.topic() + ":" + p.partition();
  }

  /**
   * What a table holds of this pipeline apart from this checkpoint's own batches: the batch keys of
   * other checkpoints of the same pipeline and the source position the table reached.
   */
  public TableHistory historyIn(Snapshot snapshot) {
    List<SetTransaction> others = new ArrayList<>();
    Map<SourcePartition, Long> positions = new TreeMap<>();
    String ownKey = batchAppId();
    for (SetTransaction t : snapshot.state().transactions().values()) {
      String appId = t.appId();
      if (appId.equals(ownKey)) {
        continue;
      }
      if (appId.equals(pipelineId) || appId.startsWith(pipelineId + "@")) {
        others.add(t);
      } else if (appId.startsWith(pipelineId + ":")) {
        parsePosition(appId.substring(pipelineId.length() + 1))
            .ifPresent(p -> positions.put(p, t.version()));
      }
    }
    others.sort(
        Comparator.comparing(
                (SetTransaction t) -> t.lastUpdated() == null ? Long.MIN_VALUE : t.lastUpdated())
            .thenComparing(SetTransaction::version));
    return new TableHistory(snapshot.location(), snapshot.version(), others, positions);
  }

  private static Optional<SourcePartition> parsePosition(String topicAndPartition) {
    int colon = topicAndPartition.lastIndexOf(':');
    if (colon <= 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new SourcePartition(
              topicAndPartition.substring(0, colon),
              Integer.parseInt(topicAndPartition.substring(colon + 1))));
    } catch (IllegalArgumentException notOurs) {
      return Optional.empty();
    }
  }

  /**
   * A table's record of a pipeline's batches written through other checkpoints.
   *
   * @param location the table
   * @param tableVersion the table version read
   * @param otherCheckpoints the latest batch key of each other checkpoint, oldest commit first
   * @param positions the next offset to read per input partition after the table's latest batch
   */
  public record TableHistory(
      String location,
      long tableVersion,
      List<SetTransaction> otherCheckpoints,
      Map<SourcePartition, Long> positions) {
    public TableHistory {
      otherCheckpoints = List.copyOf(otherCheckpoints);
      positions = Collections.unmodifiableSortedMap(new TreeMap<>(positions));
    }

    /** True if another checkpoint of the pipeline wrote batches to the table. */
    public boolean writtenByAnotherCheckpoint() {
      return !otherCheckpoints.isEmpty();
    }

    /** The other checkpoint's batch key committed last. */
    public Optional<SetTransaction> latest() {
      return otherCheckpoints.isEmpty()
          ? Optional.empty()
          : Optional.of(otherCheckpoints.get(otherCheckpoints.size() - 1));
    }
  }
}
