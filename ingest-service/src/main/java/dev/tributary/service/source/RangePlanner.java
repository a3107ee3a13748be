package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.config.StartingOffsets;
import dev.tributary.service.source.SourcePlan.DataGap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which offsets of which partitions one batch reads (the split enumerator of the Kafka
 * source, in Flink's terms): from the positions where the previous batches ended, the partitions'
 * earliest and latest offsets, the declared starting offsets, the rate limit and an available-now
 * ceiling. It asks the broker only through {@link PartitionOffsets}, so every rule is tested
 * without one.
 *
 * <p>A partition with a position continues there, unless the partition cannot be continued:
 *
 * <ul>
 *   <li>offsets below its earliest were deleted by retention: the range starts at the earliest
 *       ({@link DataGap.Deleted});
 *   <li>its topic has a new id, or its latest offset is below the position without a known topic
 *       id: the topic was deleted and re-created, and the records it holds now are new: the range
 *       starts at the partition's earliest offset ({@link DataGap.Reset}). Spark's Kafka source
 *       continues at the new latest offset instead, skipping them (docs/DESIGN.md "Partitions that
 *       go back");
 *   <li>its latest offset is below the position while its topic's id is unchanged: the log was cut
 *       back (an unclean leader election), so new records will reuse the offsets above the latest:
 *       the range starts at the latest ({@link DataGap.Truncated});
 *   <li>it is gone (a position on a partition the topics no longer have): it is left out of the
 *       plan, and read from its start like any new partition should it come back ({@link
 *       DataGap.Gone}).
 * </ul>
 *
 * With {@code fail-on-data-loss: true} each of these stops the pipeline with a {@link
 * DataLossException}; otherwise it is logged as a warning and recorded in the plan's gaps, which go
 * into the batch's offsets entry before anything is read, so a replay reads the same range. Where
 * positions are kept in tables or a consumer group's offsets (group assignment) a position cannot
 * move back, so a reset or truncated partition stops the pipeline either way.
 *
 * <p>Partitions without a position start at the declared starting offsets on the checkpoint's first
 * batch and at their earliest offset later (a partition or topic added meanwhile).
 */
final class RangePlanner {
  private static final Logger log = LoggerFactory.getLogger(RangePlanner.class);

  /** Where a partition without a position starts. */
  enum NewPartitions {
    /** The checkpoint's first batch: at the declared {@code starting-offsets}. */
    AT_STARTING_OFFSETS,
    /** Later: a partition (or topic) added since starts at its earliest offset. */
    AT_EARLIEST
  }

  /** Where the positions a plan starts from are kept, which decides whether one can move back. */
  enum Positions {
    /**
     * The checkpoint's offsets log: a position may move back (a re-created partition is read from
     * its start), and the topics' ids are recorded with each plan to find a re-created topic.
     */
    IN_OFFSETS_LOG,
    /**
     * The tables' positions or the consumer group's offsets (group assignment): a position never
     * moves back.
     */
    IN_TABLES_OR_GROUP
  }

  /**
   * Where a plan starts.
   *
   * @param positions where the previous batches ended, per partition; in group assignment only the
   *     partitions planned (a position on a partition not planned is taken as gone)
   * @param topicIds the topics' ids recorded with those positions (empty when none were)
   * @param newPartitions where partitions without a position start
   * @param kept where the positions are kept
   */
  record Start(
      Map<TopicPartition, Long> positions,
      Map<String, String> topicIds,
      NewPartitions newPartitions,
      Positions kept) {
    Start {
      positions = Map.copyOf(positions);
      topicIds = Map.copyOf(topicIds);
      Objects.requireNonNull(newPartitions, "newPartitions");
      Objects.requireNonNull(kept, "kept");
    }
  }

  private final KafkaSourceSettings settings;
  private final PartitionOffsets offsets;

  RangePlanner(KafkaSourceSettings settings, PartitionOffsets offsets) {
    this.settings = settings;
    this.offsets = offsets;
  }

  /**
   * Plans the ranges of {@code partitions}.
   *
   * @param partitions the partitions to plan, sorted (every partition of the topics, or the ones
   *     this group member owns)
   * @param start where the plan starts
   * @param ceiling per-partition offsets no range goes past (available-now); empty for none
   * @throws DataLossException if a partition cannot be continued and fail-on-data-loss is true, or
   *     its position would have to move back where it cannot
   */
  SourcePlan plan(List<TopicPartition> partitions, Start start, Map<TopicPartition, Long> ceiling) {
    Map<TopicPartition, Long> latest = offsets.latest(partitions);
    Map<TopicPartition, Long> earliest = offsets.earliest(partitions);
    // After the offsets: a topic re-created between the two lookups shows here as a new id.
    Map<String, String> topicIds =
        start.kept() == Positions.IN_OFFSETS_LOG ? offsets.topicIds(topics(partitions)) : Map.of();
    List<DataGap> gaps = new ArrayList<>();
    Set<TopicPartition> gone = new TreeSet<>(BrokerMetadata.ORDER);
    gone.addAll(start.positions().keySet());
    partitions.forEach(gone::remove);
    for (TopicPartition tp : gone) {
      cannotContinue(new DataGap.Gone(tp, start.positions().get(tp)), start.kept(), gaps);
    }
    Map<TopicPartition, Long> initial =
        start.newPartitions() == NewPartitions.AT_STARTING_OFFSETS
            ? initialOffsets(unpositioned(partitions, start), earliest, latest)
            : Map.of();
    Map<TopicPartition, Long> starts = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      Long position = start.positions().get(tp);
      long from;
      if (position != null) {
        from =
            continueFrom(
                tp,
                position,
                earliest.get(tp),
                latest.get(tp),
                Optional.ofNullable(start.topicIds().get(tp.topic())),
                Optional.ofNullable(topicIds.get(tp.topic())),
                start.kept(),
                gaps);
      } else if (start.newPartitions() == NewPartitions.AT_STARTING_OFFSETS) {
        from = initial.get(tp);
      } else {
        from = earliest.get(tp);
      }
      long low = earliest.get(tp);
      if (from < low) {
        if (settings.failOnDataLoss()) {
          throw new DataLossException(settings.pipelineId(), tp, from, low);
        }
        log.warn(
            "Pipeline {} skipping deleted offsets {}/{} [{}, {})",
            settings.pipelineId(),
            tp.topic(),
            tp.partition(),
            from,
            low);
        gaps.add(new DataGap.Deleted(tp, from, low));
        from = low;
      }
      starts.put(tp, from);
    }
    Map<TopicPartition, Long> capped = new HashMap<>(latest);
    ceiling.forEach((tp, c) -> capped.merge(tp, c, Math::min));
    for (TopicPartition tp : partitions) {
      capped.merge(tp, starts.get(tp), Math::max); // a ceiling below the start reads nothing
    }
    Map<TopicPartition, Long> ends =
        OffsetPlanner.ends(starts, capped, settings.maxOffsetsPerTrigger());
    Map<TopicPartition, OffsetRange> ranges = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      ranges.put(tp, new OffsetRange(starts.get(tp), ends.get(tp)));
    }
    return new SourcePlan(ranges, latest, gaps, topicIds);
  }

  /**
   * Where a partition with a position continues: at the position, unless it was reset (re-created)
   * or cut back. Retention is judged by the caller, on the offset returned.
   */
  private long continueFrom(
      TopicPartition tp,
      long position,
      long earliest,
      long latest,
      Optional<String> recordedId,
      Optional<String> id,
      Positions kept,
      List<DataGap> gaps) {
    boolean idsKnown = recordedId.isPresent() && id.isPresent();
    boolean recreated = idsKnown && !recordedId.equals(id);
    if (!recreated && latest >= position) {
      return position;
    }
    // Offsets below the position with the same topic id: the same log, cut back. Otherwise (a new
    // id, or no id to tell) the partition is a new one, whose records are all new.
    DataGap gap =
        idsKnown && !recreated
            ? new DataGap.Truncated(tp, latest, position)
            : new DataGap.Reset(tp, position, earliest, latest, recordedId, id);
    cannotContinue(gap, kept, gaps);
    return gap instanceof DataGap.Truncated ? latest : earliest;
  }

  /** Stops on {@code gap}, or logs and records it (fail-on-data-loss: false). */
  private void cannotContinue(DataGap gap, Positions kept, List<DataGap> gaps) {
    if (kept == Positions.IN_TABLES_OR_GROUP && !(gap instanceof DataGap.Gone)) {
      throw DataLossException.cannotMoveBack(settings.pipelineId(), settings.consumerGroup(), gap);
    }
    if (settings.failOnDataLoss()) {
      throw DataLossException.found(settings.pipelineId(), settings.bootstrapServers(), gap);
    }
    log.warn(
        "Pipeline {}: {}/{} cannot be continued at offset {} ({}), fail-on-data-loss is false: {};"
            + " recorded in the commits' commitInfo (dataLoss): {}",
        settings.pipelineId(),
        gap.partition().topic(),
        gap.partition().partition(),
        gap.from(),
        gap.cause(),
        gap instanceof DataGap.Reset r
            ? "reading it from its start, offset " + r.earliest()
            : gap instanceof DataGap.Truncated t
                ? "continuing at offset " + t.from()
                : "going on without it",
        gap.toJson());
    gaps.add(gap);
  }

  private static List<TopicPartition> unpositioned(List<TopicPartition> partitions, Start start) {
    return partitions.stream().filter(tp -> !start.positions().containsKey(tp)).toList();
  }

  private static Set<String> topics(List<TopicPartition> partitions) {
    Set<String> out = new TreeSet<>();
    partitions.forEach(tp -> out.add(tp.topic()));
    return out;
  }

  private Map<TopicPartition, Long> initialOffsets(
      List<TopicPartition> partitions,
      Map<TopicPartition, Long> earliest,
      Map<TopicPartition, Long> latest) {
    StartingOffsets policy = settings.startingOffsets();
    if (policy instanceof StartingOffsets.Latest) {
      return latest;
    }
    if (policy instanceof StartingOffsets.AtTimestamp at) {
      Map<TopicPartition, Long> found =
          partitions.isEmpty() ? Map.of() : offsets.firstAtOrAfter(partitions, at.instant());
      Map<TopicPartition, Long> out = new HashMap<>();
      for (TopicPartition tp : partitions) {
        out.put(tp, found.getOrDefault(tp, latest.get(tp)));
      }
      return out;
    }
    return earliest;
  }
}
