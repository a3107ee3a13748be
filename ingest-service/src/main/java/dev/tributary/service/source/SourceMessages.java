package dev.tributary.service.source;

import dev.tributary.service.engine.BatchRange;
import dev.tributary.service.source.SourcePlan.DataGap;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;

/** The source package's user-facing messages, built in one place. */
final class SourceMessages {
  private SourceMessages() {}

  /** A Delta source asked to continue a checkpoint whose latest batch it did not plan. */
  static String notADeltaCheckpoint(String pipelineId, String location, BatchRange previous) {
    String what =
        previous.offsets().isEmpty()
            ? "has no Delta position"
            : "holds Kafka offsets (" + previous.offsets().keySet() + ")";
    return "Pipeline "
        + pipelineId
        + ": the checkpoint's latest batch "
        + what
        + ", so source.delta ("
        + location
        + ") cannot continue it; a pipeline cannot switch sources on one checkpoint. Use a new"
        + " checkpoint location for the Delta source.";
  }

  /** Offsets the pipeline still had to read were deleted by retention. */
  static String deletedByRetention(
      String pipelineId, TopicPartition tp, long expected, long earliest) {
    return "Pipeline "
        + pipelineId
        + " lost data on "
        + name(tp)
        + ": offsets ["
        + expected
        + ", "
        + earliest
        + ") were deleted by retention before they were read (earliest available offset is "
        + earliest
        + "). To skip the gap and continue, set source.kafka.fail-on-data-loss: false (the gap is"
        + " recorded in the commit's commitInfo); to keep the data, raise the topic's retention.";
  }

  /**
   * A partition reset, cut back or gone, with fail-on-data-loss: true. The advice never skips the
   * records the partition holds now: with fail-on-data-loss: false a reset partition is read from
   * its start.
   */
  static String dataLossFound(String pipelineId, String bootstrapServers, DataGap gap) {
    String prefix = "Pipeline " + pipelineId + ": " + name(gap.partition());
    String recorded =
        " and records what happened in the commits' commitInfo (dataLoss); you may set it back to"
            + " true afterwards.";
    if (gap instanceof DataGap.Reset r) {
      return prefix
          + what(r)
          + " Records the old partition held from offset "
          + r.from()
          + " on that were not read are lost. The new partition's "
          + (r.latest() - r.earliest())
          + " records are unread: to read them and go on, set"
          + " source.kafka.fail-on-data-loss: false and run again; the pipeline then reads "
          + name(r.partition())
          + " from offset "
          + r.earliest()
          + recorded;
    }
    if (gap instanceof DataGap.Truncated t) {
      return prefix
          + what(t)
          + " To read the records written there from now on, set"
          + " source.kafka.fail-on-data-loss: false and run again; the pipeline then continues"
          + " at offset "
          + t.from()
          + recorded
          + " The sink may then hold two rows for an offset in ["
          + t.from()
          + ", "
          + t.to()
          + ").";
    }
    if (gap instanceof DataGap.Gone g) {
      return prefix
          + " no longer exists on "
          + bootstrapServers
          + ", but the checkpoint's position on it is offset "
          + g.from()
          + ": its topic was deleted, or re-created with fewer partitions. Records from offset "
          + g.from()
          + " on that were not read are lost. To go on without the partition, set"
          + " source.kafka.fail-on-data-loss: false and run again; the pipeline then reads it"
          + " from its start should it come back"
          + recorded;
    }
    DataGap.Deleted d = (DataGap.Deleted) gap;
    return deletedByRetention(pipelineId, d.partition(), d.from(), d.to());
  }

  /** Group assignment: a partition's position would have to move back. */
  static String cannotMoveBack(String pipelineId, String group, DataGap gap) {
    String what = " cannot be continued at offset " + gap.from() + ".";
    if (gap instanceof DataGap.Reset r) {
      what = what(r);
    } else if (gap instanceof DataGap.Truncated t) {
      what = what(t);
    }
    return "Pipeline "
        + pipelineId
        + ": "
        + name(gap.partition())
        + what
        + " In group assignment (consumer group "
        + group
        + ") a partition's position is kept in the tables or the group's offsets, where it"
        + " cannot move back, so the pipeline stops whatever source.kafka.fail-on-data-loss says."
        + " Restore the topic, or run the pipeline under a new pipeline name with new tables to"
        + " read the topic from its start.";
  }

  private static String what(DataGap.Reset r) {
    String ids =
        r.previousTopicId().isPresent()
                && r.topicId().isPresent()
                && !r.previousTopicId().equals(r.topicId())
            ? " and topic "
                + r.partition().topic()
                + " has a new id ("
                + r.previousTopicId().get()
                + ", now "
                + r.topicId().get()
                + ")"
            : "";
    return " was deleted and re-created: the checkpoint's position is offset "
        + r.from()
        + ", but the partition now holds offsets ["
        + r.earliest()
        + ", "
        + r.latest()
        + ")"
        + ids
        + ".";
  }

  private static String what(DataGap.Truncated t) {
    return " ends at offset "
        + t.from()
        + ", but the checkpoint already read up to offset "
        + t.to()
        + " and the topic's id is unchanged: the partition's log was cut back (an unclean leader"
        + " election?), and new records will be written at offsets "
        + t.from()
        + " to "
        + (t.to() - 1)
        + " again.";
  }

  /** A declared topic the broker does not know. */
  static String noSuchTopic(String pipelineId, String topic, String bootstrapServers) {
    return "Pipeline "
        + pipelineId
        + ": topic '"
        + topic
        + "' does not exist on "
        + bootstrapServers
        + "; create it or fix source.kafka.topics";
  }

  /** A metadata call ran out of time. */
  static String metadataTimeout(
      String pipelineId, String bootstrapServers, Duration timeout, String kafkaMessage) {
    return "Pipeline "
        + pipelineId
        + ": Kafka at "
        + bootstrapServers
        + " did not answer a metadata request within "
        + timeout.toSeconds()
        + "s ("
        + kafkaMessage
        + "). Check source.kafka.bootstrap-servers, that the broker is running and reachable, and"
        + " the security settings in source.kafka.properties.";
  }

  /** A read made no progress for the read timeout. */
  static String readStuck(
      String pipelineId,
      TopicPartition tp,
      long position,
      Duration timeout,
      long end,
      String bootstrapServers) {
    return "Pipeline "
        + pipelineId
        + ": no records from "
        + name(tp)
        + " at offset "
        + position
        + " for "
        + timeout.toSeconds()
        + "s while the batch must read up to "
        + end
        + "; is the broker "
        + bootstrapServers
        + " reachable and the partition's leader available?";
  }

  /** A group-mode call on a source in exclusive assignment. */
  static String notAGroupSource(String pipelineId) {
    return "Pipeline "
        + pipelineId
        + ": not a consumer-group source; the consumer group's calls need"
        + " source.kafka.assignment: group";
  }

  /** A sub-pipeline planned a partition its group member does not own (any more). */
  static String notAssigned(String pipelineId, String group, TopicPartition tp) {
    return "Pipeline "
        + pipelineId
        + ": consumer group "
        + group
        + " does not assign "
        + name(tp)
        + " to this instance (any more); its new owner runs it";
  }

  static String name(TopicPartition tp) {
    return tp.topic() + "/" + tp.partition();
  }
}
