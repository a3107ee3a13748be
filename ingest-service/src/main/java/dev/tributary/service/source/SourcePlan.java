package dev.tributary.service.source;

import dev.tributary.checkpoint.OffsetRange;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * The ranges one batch will read, and what planning noticed on the way.
 *
 * @param ranges per partition, {@code [start, end)}; partitions with nothing to read have empty
 *     ranges
 * @param latest the latest offset per partition when planned (for lag reporting)
 * @param gaps input the plan could not take as the checkpoint expected (only with
 *     fail-on-data-loss: false): offsets retention deleted, partitions reset or gone
 * @param topicIds the id of each planned topic when planned, where the broker told it (recorded
 *     with the batch, so that the next plan notices a topic deleted and re-created)
 */
public record SourcePlan(
    Map<TopicPartition, OffsetRange> ranges,
    Map<TopicPartition, Long> latest,
    List<DataGap> gaps,
    Map<String, String> topicIds) {
  public SourcePlan {
    ranges = Map.copyOf(ranges);
    latest = Map.copyOf(latest);
    gaps = List.copyOf(gaps);
    topicIds = Map.copyOf(topicIds);
  }

  /** A plan without topic ids. */
  public SourcePlan(
      Map<TopicPartition, OffsetRange> ranges,
      Map<TopicPartition, Long> latest,
      List<DataGap> gaps) {
    this(ranges, latest, gaps, Map.of());
  }

  /** Number of offsets the batch covers (records, or fewer with compaction or transactions). */
  public long offsetCount() {
    return ranges.values().stream().mapToLong(OffsetRange::count).sum();
  }

  /** Offsets still unread after this batch, summed over partitions. */
  public long lagAfter() {
    long lag = 0;
    for (var e : ranges.entrySet()) {
      lag += Math.max(0, latest.getOrDefault(e.getKey(), e.getValue().end()) - e.getValue().end());
    }
    return lag;
  }

  /**
   * Input of a partition that the pipeline did not read where the checkpoint expected it, and why.
   * Recorded in the offsets log (a planned gap) or returned by a read, and from there in the
   * commits' {@code commitInfo} as JSON: one object per gap, {@link #toJson()}, with {@code topic},
   * {@code partition}, {@code cause} and {@code from} always present. {@code toString()} is the
   * JSON too, so a list of gaps prints as a JSON array.
   */
  public sealed interface DataGap {
    /** The partition concerned. */
    TopicPartition partition();

    /**
     * Where the gap starts: the first offset not read where the checkpoint expected it (for a log
     * cut back, its new end, from which offsets are written again).
     */
    long from();

    /** What happened, in the JSON's {@code cause}. */
    String cause();

    /** The gap's own fields after the common ones, in order. */
    Map<String, Object> details();

    /** The gap as one JSON object. */
    default String toJson() {
      Map<String, Object> fields = new LinkedHashMap<>();
      fields.put("topic", partition().topic());
      fields.put("partition", partition().partition());
      fields.put("cause", cause());
      fields.put("from", from());
      fields.putAll(details());
      return SourceJson.write(fields);
    }

    /** Gaps as one JSON array of {@link #toJson()} objects. */
    static String toJson(List<? extends DataGap> gaps) {
      return SourceJson.array(gaps.stream().map(DataGap::toJson).toList());
    }

    /**
     * Offsets {@code [from, to)} deleted by the topic's retention before they were read; reading
     * went on at {@code to}.
     */
    record Deleted(TopicPartition partition, long from, long to) implements DataGap {
      @Override
      public String cause() {
        return "retention";
      }

      @Override
      public Map<String, Object> details() {
        return Map.of("to", to);
      }

      @Override
      public String toString() {
        return toJson();
      }
    }

    /**
     * The partition was deleted and re-created (its offsets went below the checkpoint's position,
     * or its topic's id changed): the old partition's offsets from {@code from} on, up to an end no
     * longer known, cannot be read; reading started again at the new partition's {@code earliest}
     * offset.
     *
     * @param earliest the re-created partition's earliest offset when the reset was found
     * @param latest its latest offset then
     * @param previousTopicId the topic's id recorded with the checkpoint's position, if any
     * @param topicId the topic's id when the reset was found, if known
     */
    record Reset(
        TopicPartition partition,
        long from,
        long earliest,
        long latest,
        Optional<String> previousTopicId,
        Optional<String> topicId)
        implements DataGap {
      @Override
      public String cause() {
        return "partition-reset";
      }

      @Override
      public Map<String, Object> details() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("earliest", earliest);
        out.put("latest", latest);
        previousTopicId.ifPresent(id -> out.put("previousTopicId", id));
        topicId.ifPresent(id -> out.put("topicId", id));
        return out;
      }

      @Override
      public String toString() {
        return toJson();
      }
    }

    /**
     * The partition's log was cut back below what the pipeline had read, its topic unchanged (an
     * unclean leader election): offsets {@code [from, to)} were read from records the partition no
     * longer holds, and new records will be written at these offsets again; reading went on at
     * {@code from}. Nothing unread is lost, but two rows of the sink may carry one offset.
     */
    record Truncated(TopicPartition partition, long from, long to) implements DataGap {
      @Override
      public String cause() {
        return "log-truncated";
      }

      @Override
      public Map<String, Object> details() {
        return Map.of("to", to);
      }

      @Override
      public String toString() {
        return toJson();
      }
    }

    /**
     * The partition no longer exists (its topic was deleted, or re-created with fewer partitions):
     * its offsets from {@code from} on that were not read cannot be read. Should it come back, it
     * is read from its start like any new partition.
     */
    record Gone(TopicPartition partition, long from) implements DataGap {
      @Override
      public String cause() {
        return "partition-gone";
      }

      @Override
      public Map<String, Object> details() {
        return Map.of();
      }

      @Override
      public String toString() {
        return toJson();
      }
    }
  }
}
