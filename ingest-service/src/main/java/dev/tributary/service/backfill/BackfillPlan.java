package dev.tributary.service.backfill;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Assignment;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.DeltaTableSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.SourceSpec;
import dev.tributary.config.StartingOffsets;
import dev.tributary.config.StartingVersion;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.config.WindowSpec;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A backfill's declaration, derived from the live pipeline's: the same query (parse, transform,
 * joins, expectations, deduplication, windows, aggregation) with
 *
 * <ul>
 *   <li>its own id, {@code <pipeline>-backfill-<hash>} of the pipeline, the range and the target:
 *       the app id of its Delta {@code txn} actions, never the live pipeline's;
 *   <li>its own checkpoint beside the live one, {@code <checkpoint>-backfill-<hash>}: a rerun of
 *       the same backfill continues it, and the live checkpoint is never opened;
 *   <li>a Kafka source read by this process alone from the offsets at {@code from} minus the
 *       watermark delay (the end, at {@code to} plus the delay, is set on the source at start); a
 *       Delta source table read whole, as of the start;
 *   <li>the target table as its only sink, and its quarantine beside it ({@code
 *       <target>-quarantine}): records the live run quarantined are not quarantined twice in the
 *       live quarantine table; no late-events table (the range decides what is written);
 *   <li>the available-now trigger.
 * </ul>
 *
 * What is refused, and why, is in {@link BackfillErrors}.
 *
 * @param live the pipeline as declared
 * @param spec the backfill's declaration
 * @param range the event-time range
 * @param delay the watermark delay (zero without a watermark)
 * @param target the table written
 * @param edges the windows at the range's ends the backfill leaves alone (windowed only)
 */
public record BackfillPlan(
    PipelineSpec live,
    PipelineSpec spec,
    BackfillRange range,
    Duration delay,
    String target,
    List<EdgeWindows.EdgeWindow> edges) {

  public BackfillPlan {
    edges = List.copyOf(edges);
  }

  /**
   * Plans {@code --into target}.
   *
   * @throws BackfillRefusal for a declaration a backfill does not support, saying why
   */
  public static BackfillPlan into(PipelineSpec live, BackfillRange range, String target) {
    DeltaSinkSpec sink = checkSupported(live);
    if (sameTable(target, sink.path()) || sameTable(target, live.quarantine().path())) {
      throw new BackfillRefusal(BackfillErrors.targetIsLive(live.id(), target));
    }
    if (inside(target, sink.path())) {
      // a table inside the live one: its files would be the live table's orphans, for vacuum
      throw new BackfillRefusal(BackfillErrors.targetInsideLive(live.id(), target, sink.path()));
    }
    String hash = hash(live.id() + "\n" + range.from() + "\n" + range.to() + "\n" + target);
    return plan(live, range, target, hash);
  }

  /**
   * Plans {@code --replace}: the backfill runs into a staging table inside the live table's folder,
   * {@code <live>/}{@value #STAGING_FOLDER}{@code /<hash>} (a folder whose name starts with {@code
   * _}: Delta readers and vacuum ignore it), whose files the swap then adds to the live table by
   * path. The hash is of the pipeline id, the range and the query ({@link
   * PipelineSpec#checkpointIdentity()}: format, transforms, watermark, aggregation, ...), so a
   * rerun of the same command continues the same staging run and a replace once swapped is not
   * swapped again, while the range replaced again after another fix of the query is a new backfill
   * (the swap's txn would otherwise say it was done).
   *
   * @throws BackfillRefusal as {@link #into}
   */
  public static BackfillPlan replace(PipelineSpec live, BackfillRange range) {
    DeltaSinkSpec sink = checkSupported(live);
    String hash =
        hash(
            live.id()
                + "\n"
                + range.from()
                + "\n"
                + range.to()
                + "\nreplace\n"
                + live.checkpointIdentity());
    return plan(live, range, stripSlash(sink.path()) + "/" + stagingFolder(hash), hash);
  }

  /** The folder of the live table holding the staging tables of {@code --replace}. */
  public static final String STAGING_FOLDER = "_tributary_backfill";

  private static String stagingFolder(String hash) {
    return STAGING_FOLDER + "/" + hash;
  }

  /**
   * Whether the backfill writes a staging table inside the live table's folder ({@link #replace}),
   * where a table of its own may lie: the one place a backfill shares the live table's storage.
   */
  public boolean stagesInLiveTable() {
    return inside(target, liveTable())
        && target.startsWith(stripSlash(liveTable()) + "/" + STAGING_FOLDER + "/");
  }

  /** The live table the backfill replaces the range of (the pipeline's one Delta sink). */
  public String liveTable() {
    return live.deltaSink().orElseThrow().path();
  }

  /**
   * The staging table's path relative to the live table ({@code --replace}), e.g. {@code
   * _tributary_backfill/1a2b3c4d}.
   */
  public String stagingFolder() {
    return target.substring(stripSlash(liveTable()).length() + 1);
  }

  private static DeltaSinkSpec checkSupported(PipelineSpec live) {
    String id = live.id();
    if (live.sinks().size() != 1 || live.deltaSink().isEmpty()) {
      throw new BackfillRefusal(BackfillErrors.notOneDeltaSink(id, live.sinkLocations()));
    }
    DeltaSinkSpec sink = live.deltaSink().get();
    if (sink.route().isPresent()) {
      throw new BackfillRefusal(BackfillErrors.routed(id));
    }
    if (sink.upsert().isPresent()) {
      throw new BackfillRefusal(BackfillErrors.upsert(id));
    }
    Optional<WindowSpec> window = live.aggregate().flatMap(AggregateSpec::window);
    if (live.aggregate().isPresent() && window.isEmpty()) {
      throw new BackfillRefusal(BackfillErrors.runningAggregation(id));
    }
    if (window.isPresent() && window.get() instanceof WindowSpec.Session) {
      throw new BackfillRefusal(BackfillErrors.sessionWindow(id));
    }
    if (window.isPresent() && live.outputMode() != OutputMode.APPEND) {
      throw new BackfillRefusal(BackfillErrors.notAppendMode(id, live.outputMode()));
    }
    if (window.isEmpty() && live.watermark().isEmpty()) {
      throw new BackfillRefusal(BackfillErrors.noEventTime(id));
    }
    return sink;
  }

  private static BackfillPlan plan(
      PipelineSpec live, BackfillRange range, String target, String hash) {
    String id = live.id();
    DeltaSinkSpec sink = live.deltaSink().get();
    Optional<WindowSpec> window = live.aggregate().flatMap(AggregateSpec::window);
    Duration delay = live.watermark().map(WatermarkSpec::delay).orElse(Duration.ZERO);
    String backfillId = backfillId(id, hash);
    SourceSpec source = source(live.source(), range.readFrom(delay));
    DeltaSinkSpec into =
        new DeltaSinkSpec(
            target,
            sink.partitionBy(),
            sink.targetFileSize(),
            sink.compression(),
            Optional.empty(),
            Optional.empty());
    PipelineSpec spec =
        new PipelineSpec(
            backfillId,
            source,
            live.format(),
            live.transforms(),
            live.joins(),
            live.watermark(),
            live.deduplicate(),
            live.aggregate(),
            live.outputMode(),
            List.of(into),
            new DeltaTableSpec(stripSlash(target) + "-quarantine"),
            Optional.empty(),
            stripSlash(live.checkpoint()) + "-backfill-" + hash,
            new TriggerSpec.AvailableNow(),
            live.maintenance(),
            Optional.empty(),
            live.storage(),
            live.secrets(),
            live.schemaEvolution(),
            live.quarantineLimit(),
            live.expectations());
    List<EdgeWindows.EdgeWindow> edges =
        window.map(w -> EdgeWindows.of(w, range)).orElse(List.of());
    return new BackfillPlan(live, spec, range, delay, target, edges);
  }

  /**
   * The live source, read from {@code readFrom} by Kafka timestamp by this process alone; a Delta
   * source table read whole as of the run's start ({@code starting-version: earliest}: its snapshot
   * then, and no later commit, as the run is available-now).
   */
  private static SourceSpec source(SourceSpec live, Instant readFrom) {
    if (live instanceof DeltaSourceSpec delta) {
      return new DeltaSourceSpec(
          delta.path(),
          new StartingVersion.Earliest(),
          delta.maxFilesPerTrigger(),
          delta.maxBytesPerTrigger(),
          delta.ignoreDeletes(),
          delta.skipChangeCommits(),
          delta.storage());
    }
    KafkaSourceSpec kafka = (KafkaSourceSpec) live;
    return new KafkaSourceSpec(
        kafka.bootstrapServers(),
        kafka.topics(),
        new StartingOffsets.AtTimestamp(readFrom),
        kafka.maxOffsetsPerTrigger(),
        kafka.failOnDataLoss(),
        kafka.properties(),
        Assignment.EXCLUSIVE);
  }

  /** Which rows of the backfill's output (with columns {@code output}) it writes. */
  public RowSelector selector(StructType output) {
    if (live.aggregate().isPresent()) {
      return RowSelector.windows(output, range);
    }
    return RowSelector.eventTime(live.id(), output, live.watermark().get().column(), range);
  }

  /** The backfill's id: the app id prefix of its txn actions. */
  public String id() {
    return spec.id();
  }

  /** The id as {@code <pipeline>-backfill-<hash>}, the pipeline id shortened to fit the limit. */
  static String backfillId(String pipelineId, String hash) {
    String suffix = "-backfill-" + hash;
    int room = PipelineSpec.MAX_ID_LENGTH - suffix.length();
    return (pipelineId.length() > room ? pipelineId.substring(0, room) : pipelineId) + suffix;
  }

  private static String hash(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 4);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }

  private static boolean inside(String path, String folder) {
    return stripSlash(path).startsWith(stripSlash(folder) + "/");
  }

  private static boolean sameTable(String a, String b) {
    return stripSlash(a).equals(stripSlash(b));
  }

  private static String stripSlash(String path) {
    String p = path.strip();
    while (p.length() > 1 && p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p;
  }
}
