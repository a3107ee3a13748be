package dev.tributary.service.exchange;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.RecoveryPlan;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.WatermarkAgreement;
import dev.tributary.service.engine.WriteAheadLog;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The watermark the sub-pipelines of a stateful group-mode pipeline agree on (docs/DESIGN.md, "The
 * agreed watermark"): the minimum over ALL repartition partitions {@code 0..N-1}, owned here or
 * not, of the watermark each partition's latest commits entry records ({@code
 * nextWatermarkMicros}); none until every partition has recorded one. Minimum, so that a row is
 * late only against the progress of its own partition, never against a faster instance's.
 *
 * <p>With {@code watermark.idle-timeout} ({@link Idleness}), a partition whose latest commits entry
 * is older than the timeout (its sub-pipeline committed no batch with input for that long: the
 * entry's {@code lastInputAt}, else its commit time) is left out of the minimum, and so is a
 * partition without any commits entry once the timeout has passed since this instance started: an
 * idle partition no longer holds the watermark back forever. When every partition is idle, none is
 * left out (nothing moves the watermark then anyway). A partition that is left out and has records
 * again commits a new entry and counts again; its rows older than the watermark that moved on
 * meanwhile are late. The engine never lets the applied watermark go back ({@link
 * dev.tributary.service.engine.WatermarkPolicy.Agreed}).
 *
 * <p>Read from the sub-checkpoints, so every instance computes the same value (with an idle
 * timeout: up to the instances' clock skew): {@link #refresh} reads each partition's latest commits
 * entry once (a listing and one small file per partition), once per round of {@link
 * PartitionPipelines}; {@link #agreed} answers from that reading.
 *
 * <p><b>Keyed-by sources</b> ({@link #keyed}: the partitions are the source topic's, read directly;
 * docs/DESIGN.md "Keyed-by sources: no exchange"). Each partition's recorded watermark is its own
 * maximum event time minus the delay, so the minimum would hold every window back to the slowest
 * partition's maximum even after everything is read, where one instance uses the maximum over all
 * partitions. Instead, Spark's rule for partitions read together, made independent of the
 * instances' speed as stage 2's source clock does: the agreed watermark is the maximum of the
 * recorded watermarks, but never past the recorded watermark of a partition that is <i>behind</i>
 * (its latest batch is not committed, or ends before the partition's readable end: the latest
 * offset, capped at an available-now ceiling), and none while a behind partition has recorded none.
 * A caught-up partition holds nothing back; once every partition is read, none is behind and the
 * agreed watermark is one instance's. The idle timeout does not apply (a caught-up partition is
 * never waited for).
 */
public final class AgreedWatermark implements WatermarkAgreement {
  /** Opens (and caches) the checkpoint of a partition. */
  interface Checkpoints {
    Checkpoint of(int partition) throws IOException;
  }

  /**
   * When a partition counts as idle.
   *
   * @param timeout {@code watermark.idle-timeout}; empty: never (the default)
   * @param clock compared with the partitions' last input ({@link #lastInput})
   */
  record Idleness(Optional<Duration> timeout, Clock clock) {
    Idleness {
      Objects.requireNonNull(timeout, "timeout");
      Objects.requireNonNull(clock, "clock");
    }
  }

  /** Where each partition counts as read to the end now (a keyed-by source). */
  interface ReadableEnds {
    Map<Integer, Long> now();
  }

  private final Checkpoints checkpoints;
  private final int partitions;
  private final String topic;
  private final ReadableEnds readableEnds;
  private final Idleness idleness;
  private final Instant started;
  private volatile OptionalLong agreed = OptionalLong.empty();
  private boolean read;

  AgreedWatermark(Checkpoints checkpoints, int partitions, Idleness idleness) {
    this(checkpoints, partitions, idleness, null, null);
  }

  /**
   * The agreement of a keyed-by source's partitions (see the class comment).
   *
   * @param topic the source topic, whose partitions {@code 0..N-1} are the sub-pipelines'
   * @param readableEnds where each partition counts as read to the end now
   */
  static AgreedWatermark keyed(
      Checkpoints checkpoints, int partitions, String topic, ReadableEnds readableEnds) {
    return new AgreedWatermark(
        checkpoints,
        partitions,
        new Idleness(Optional.empty(), Clock.systemUTC()),
        Objects.requireNonNull(topic, "topic"),
        Objects.requireNonNull(readableEnds, "readableEnds"));
  }

  private AgreedWatermark(
      Checkpoints checkpoints,
      int partitions,
      Idleness idleness,
      String topic,
      ReadableEnds readableEnds) {
    this.topic = topic;
    this.readableEnds = readableEnds;
    this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    this.partitions = partitions;
    this.idleness = Objects.requireNonNull(idleness, "idleness");
    this.started = idleness.clock().instant();
  }

  /** Reads every partition's latest commits entry again and returns the agreed watermark. */
  public OptionalLong refresh() throws IOException {
    if (readableEnds != null) {
      List<RecoveryPlan> plans = new ArrayList<>(partitions);
      for (int n = 0; n < partitions; n++) {
        plans.add(checkpoints.of(n).recover());
      }
      agreed = ofPlans(plans);
      read = true;
      return agreed;
    }
    List<Optional<CommitEntry>> latest = new ArrayList<>(partitions);
    for (int n = 0; n < partitions; n++) {
      latest.add(checkpoints.of(n).latestCommit());
    }
    agreed = minimumOf(latest);
    read = true;
    return agreed;
  }

  /** The agreed watermark of the last {@link #refresh} (which runs now if it never did). */
  @Override
  public OptionalLong agreed(OptionalLong own) throws IOException {
    return read ? agreed : refresh();
  }

  /** The last value read, without reading. */
  public OptionalLong current() {
    return agreed;
  }

  /**
   * The agreed watermark of the partitions' recovery plans {@code 0..N-1}: the keyed-by rule (class
   * comment) for a keyed-by source, else {@link #minimumOf} their latest commits.
   */
  OptionalLong ofPlans(List<RecoveryPlan> plans) {
    if (readableEnds == null) {
      return minimumOf(plans.stream().map(RecoveryPlan::latestCommit).toList());
    }
    return keyedRule(plans, readableEnds.now(), topic);
  }

  /**
   * The maximum recorded watermark, capped at the recorded watermark of every partition that is
   * behind {@code readable} (empty if such a partition has none).
   */
  static OptionalLong keyedRule(
      List<RecoveryPlan> plans, Map<Integer, Long> readable, String topic) {
    long max = Long.MIN_VALUE;
    long cap = Long.MAX_VALUE;
    for (int n = 0; n < plans.size(); n++) {
      RecoveryPlan plan = plans.get(n);
      OptionalLong own =
          plan.latestCommit().map(CommitEntry::nextWatermarkMicros).orElse(OptionalLong.empty());
      if (own.isPresent()) {
        max = Math.max(max, own.getAsLong());
      }
      boolean caughtUp =
          plan.action() == RecoveryPlan.Action.RESUME
              && readTo(plan, topic, n) >= readable.getOrDefault(n, 0L);
      if (!caughtUp) {
        if (own.isEmpty()) {
          return OptionalLong.empty();
        }
        cap = Math.min(cap, own.getAsLong());
      }
    }
    return max == Long.MIN_VALUE ? OptionalLong.empty() : OptionalLong.of(Math.min(max, cap));
  }

  /** Where partition {@code n}'s latest committed batch ended (0 without one). */
  private static long readTo(RecoveryPlan plan, String topic, int n) {
    OffsetRange range =
        plan.latestOffsets().map(e -> e.ranges().get(new SourcePartition(topic, n))).orElse(null);
    return range == null ? 0 : range.end();
  }

  /**
   * The minimum over the partitions that are not idle (see the class comment) of their recorded
   * watermark, now.
   */
  OptionalLong minimumOf(List<Optional<CommitEntry>> latestCommits) {
    if (idleness.timeout().isEmpty()) {
      return minimum(latestCommits);
    }
    Instant now = idleness.clock().instant();
    Instant idleBefore = now.minus(idleness.timeout().get());
    List<Optional<CommitEntry>> active =
        latestCommits.stream()
            .filter(
                c ->
                    c.isPresent()
                        ? !lastInput(c.get()).isBefore(idleBefore)
                        : !started.isBefore(idleBefore))
            .toList();
    return minimum(active.isEmpty() ? latestCommits : active);
  }

  /**
   * When the partition last committed a batch with input: the entry's {@link
   * WriteAheadLog#LAST_INPUT_AT}, else its commit time (a batch without input, which only moved the
   * watermark, does not make a partition active).
   */
  static Instant lastInput(CommitEntry commit) {
    String at = commit.extras().get(WriteAheadLog.LAST_INPUT_AT);
    if (at == null) {
      return commit.committedAt();
    }
    try {
      return Instant.parse(at);
    } catch (DateTimeParseException e) {
      return commit.committedAt(); // written by this code as an ISO instant; never fail a round
    }
  }

  /**
   * The minimum of every partition's recorded watermark; empty if one has none (or no commit yet).
   */
  static OptionalLong minimum(List<Optional<CommitEntry>> latestCommits) {
    long min = Long.MAX_VALUE;
    for (Optional<CommitEntry> commit : latestCommits) {
      if (commit.isEmpty() || commit.get().nextWatermarkMicros().isEmpty()) {
        return OptionalLong.empty();
      }
      min = Math.min(min, commit.get().nextWatermarkMicros().getAsLong());
    }
    return latestCommits.isEmpty() ? OptionalLong.empty() : OptionalLong.of(min);
  }
}
