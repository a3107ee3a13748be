package dev.tributary.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * One validated pipeline declaration: everything a pipeline file says, with every default applied.
 * Instances come from {@link PipelineParser}; all cross-part rules (referenced columns exist,
 * output mode fits the query, ...) have been checked by then.
 *
 * @param id the pipeline id ({@code [a-z0-9-]+}, at most {@link #MAX_ID_LENGTH} characters); also
 *     the start of the Delta {@code txn} appId, {@code <pipeline id>@<checkpoint id>}
 * @param source the Kafka source or the Delta source table
 * @param format how record values are decoded (JSON, or Avro/Protobuf with a schema registry);
 *     present exactly when the source is Kafka (a Delta table's schema is the input schema)
 * @param transforms filter and derive steps, in the order they apply; empty when none
 * @param joins the stream-static joins with Delta dimension tables, in the order they apply (after
 *     the transforms, before the watermark); empty when none
 * @param streamJoin the stream-stream join with a second input ({@code join[k].stream}, after the
 *     stream-static joins), if declared; accepted by {@code validate}, refused by {@code run} until
 *     issue 25's next steps
 * @param watermark the event-time watermark, if declared
 * @param deduplicate the deduplication, if declared
 * @param aggregate the aggregation (windowed, or running without a window), if declared
 * @param outputMode append (default), update or complete
 * @param sinks where results go, in the declared order: {@code sink} (one sink) or {@code sinks}
 *     (several, fed by the same batch); at most one Delta table among them
 * @param quarantine the Delta table unparseable records go to (default: the Delta sink's path +
 *     {@code -quarantine}, or without a Delta sink the checkpoint location + {@code -quarantine})
 * @param lateEvents the Delta table events behind the watermark go to, if declared (else they are
 *     dropped and counted)
 * @param checkpoint the checkpoint location ({@code s3://bucket/prefix} or a local path)
 * @param trigger when micro-batches run (default: processing time every 10 seconds)
 * @param maintenance compaction, vacuum and log checkpoint settings
 * @param backfill scheduled available-now runs, if declared
 * @param storage explicit S3 settings, if declared (else the AWS default credential chain)
 * @param secrets the declaration's secret values (storage keys, registry credentials, secret Kafka
 *     properties, the values of {@code ${NAME}} references whose name looks secret) and its
 *     references; whatever is shown to a user about this pipeline is passed through {@link
 *     Secrets#mask}
 * @param schemaEvolution the {@code schema-evolution} section ({@link SchemaEvolutionSpec#DEFAULT}
 *     when absent)
 * @param quarantineLimit {@code quarantine.max-fraction}, if declared (else no limit)
 * @param expectations the data-quality rules every transformed row is checked against, in order
 */
public record PipelineSpec(
    String id,
    SourceSpec source,
    Optional<FormatSpec> format,
    List<TransformStep> transforms,
    List<JoinSpec> joins,
    Optional<StreamJoinSpec> streamJoin,
    Optional<WatermarkSpec> watermark,
    Optional<DeduplicateSpec> deduplicate,
    Optional<AggregateSpec> aggregate,
    OutputMode outputMode,
    List<SinkSpec> sinks,
    DeltaTableSpec quarantine,
    Optional<DeltaTableSpec> lateEvents,
    String checkpoint,
    TriggerSpec trigger,
    MaintenanceSpec maintenance,
    Optional<BackfillSpec> backfill,
    Optional<StorageSpec> storage,
    Secrets secrets,
    SchemaEvolutionSpec schemaEvolution,
    Optional<QuarantineLimit> quarantineLimit,
    List<ExpectationSpec> expectations) {

  /**
   * The longest pipeline id, in characters: the id names folders, the Kafka consumer group and
   * metric tags, each of which has length limits of its own further down.
   */
  public static final int MAX_ID_LENGTH = 64;

  /** The Kafka metadata columns every row carries when there is no aggregation, in output order. */
  public static final List<String> KAFKA_METADATA_COLUMNS =
      List.of("_kafka_topic", "_kafka_partition", "_kafka_offset", "_kafka_timestamp");

  /** Checks that no part is null and copies the transform list. */
  public PipelineSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(format, "format");
    transforms = List.copyOf(transforms);
    expectations = List.copyOf(expectations);
    joins = List.copyOf(joins);
    Objects.requireNonNull(streamJoin, "streamJoin");
    Objects.requireNonNull(watermark, "watermark");
    Objects.requireNonNull(deduplicate, "deduplicate");
    Objects.requireNonNull(aggregate, "aggregate");
    Objects.requireNonNull(outputMode, "outputMode");
    sinks = List.copyOf(sinks);
    if (sinks.isEmpty()) {
      throw new IllegalArgumentException("a pipeline needs at least one sink");
    }
    Objects.requireNonNull(quarantine, "quarantine");
    Objects.requireNonNull(lateEvents, "lateEvents");
    Objects.requireNonNull(checkpoint, "checkpoint");
    Objects.requireNonNull(trigger, "trigger");
    Objects.requireNonNull(maintenance, "maintenance");
    Objects.requireNonNull(backfill, "backfill");
    Objects.requireNonNull(storage, "storage");
    Objects.requireNonNull(secrets, "secrets");
    Objects.requireNonNull(schemaEvolution, "schemaEvolution");
    Objects.requireNonNull(quarantineLimit, "quarantineLimit");
  }

  /**
   * A declaration without a stream-stream join: the canonical constructor's parts but {@code
   * streamJoin} (for code that builds a derived declaration from a pipeline it has already refused
   * to run with a stream join, such as a backfill's).
   */
  public PipelineSpec(
      String id,
      SourceSpec source,
      Optional<FormatSpec> format,
      List<TransformStep> transforms,
      List<JoinSpec> joins,
      Optional<WatermarkSpec> watermark,
      Optional<DeduplicateSpec> deduplicate,
      Optional<AggregateSpec> aggregate,
      OutputMode outputMode,
      List<SinkSpec> sinks,
      DeltaTableSpec quarantine,
      Optional<DeltaTableSpec> lateEvents,
      String checkpoint,
      TriggerSpec trigger,
      MaintenanceSpec maintenance,
      Optional<BackfillSpec> backfill,
      Optional<StorageSpec> storage,
      Secrets secrets,
      SchemaEvolutionSpec schemaEvolution,
      Optional<QuarantineLimit> quarantineLimit,
      List<ExpectationSpec> expectations) {
    this(
        id,
        source,
        format,
        transforms,
        joins,
        Optional.empty(),
        watermark,
        deduplicate,
        aggregate,
        outputMode,
        sinks,
        quarantine,
        lateEvents,
        checkpoint,
        trigger,
        maintenance,
        backfill,
        storage,
        secrets,
        schemaEvolution,
        quarantineLimit,
        expectations);
  }

  /**
   * The left side of the stream-stream join alone: this declaration without its stream join and
   * without the stateful operators after it (which may name the second input's columns), in append
   * mode. {@code validate} compiles it to show the main input's schema while the join itself is not
   * built (issue 25).
   */
  public PipelineSpec mainInput() {
    return new PipelineSpec(
        id,
        source,
        format,
        transforms,
        joins,
        watermark,
        Optional.empty(),
        Optional.empty(),
        OutputMode.APPEND,
        sinks,
        quarantine,
        lateEvents,
        checkpoint,
        trigger,
        maintenance,
        backfill,
        storage,
        secrets,
        schemaEvolution,
        quarantineLimit,
        expectations);
  }

  /**
   * Returns the parts of the declaration a checkpoint depends on, in a fixed order, each rendered
   * as a canonical string; absent parts are {@code "none"}. Two declarations whose identities are
   * equal can share a checkpoint; when they differ, the differing keys tell the user exactly what
   * changed. Keys: {@code source.topics} (a Kafka source; in group mode also {@code
   * source.assignment}, and {@code source.keyed-by} when declared) or {@code source.delta} (a Delta
   * source: its table path), {@code format.schema} ({@code "the source table's"} with a Delta
   * source), {@code transform}, {@code watermark.column}, {@code deduplicate}, {@code
   * aggregate.window}, {@code aggregate.group-by}, {@code aggregate.measures}, {@code output-mode},
   * and {@code join} for a stateful pipeline with joins (their types, tables, keys and picked
   * columns; not their {@code max-size} or storage). Settings that do not affect state (paths,
   * trigger, rate limits, delays, maintenance) are not part of it.
   */
  public Map<String, String> checkpointIdentity() {
    Map<String, String> identity = new LinkedHashMap<>();
    // A Kafka pipeline's keys stay what they were, so that existing checkpoints still match.
    if (source instanceof DeltaSourceSpec delta) {
      identity.put("source.delta", delta.path());
    } else {
      KafkaSourceSpec kafka = (KafkaSourceSpec) source;
      identity.put("source.topics", kafka.topics().canonical());
      if (kafka.assignment() == Assignment.GROUP) {
        // Only then, so that exclusive checkpoints keep their identity. A group checkpoint keeps
        // its
        // progress in the sink table, not in its offsets log: switching modes on one checkpoint is
        // refused rather than silently reading the other mode's (absent) progress.
        identity.put("source.assignment", kafka.assignment().keyword());
        if (!kafka.keyedBy().isEmpty()) {
          // With keyed-by the sub-checkpoints partitions/<n> are the source topic's partitions,
          // without it the repartition topic's: one checkpoint never serves both.
          identity.put("source.keyed-by", String.join(",", kafka.keyedBy()));
        }
      }
    }
    identity.put(
        "format.schema",
        format
            .map(
                f ->
                    f.columns().stream()
                        .map(c -> c.name() + ":" + c.type().canonical())
                        .collect(Collectors.joining(",", "[", "]")))
            .orElse("the source table's"));
    identity.put(
        "transform",
        transforms.isEmpty()
            ? "none"
            : transforms.stream().map(TransformStep::canonical).collect(Collectors.joining("; ")));
    identity.put("watermark.column", watermark.map(WatermarkSpec::column).orElse("none"));
    identity.put("deduplicate", deduplicate.map(DeduplicateSpec::canonical).orElse("none"));
    identity.put("aggregate.window", aggregate.map(AggregateSpec::canonicalWindow).orElse("none"));
    identity.put("aggregate.group-by", aggregate.map(a -> a.groupBy().toString()).orElse("none"));
    identity.put(
        "aggregate.measures", aggregate.map(AggregateSpec::canonicalMeasures).orElse("none"));
    identity.put("output-mode", outputMode.keyword());
    if (!joins.isEmpty()
        && (watermark.isPresent() || deduplicate.isPresent() || aggregate.isPresent())) {
      // The state holds joined rows (or aggregates of them): another table, key, type or column
      // list
      // would leave it inconsistent. Only then, so that a stateless pipeline's identity (and a
      // stateful one without joins) stays what it was.
      identity.put(
          "join", joins.stream().map(JoinSpec::canonical).collect(Collectors.joining("; ")));
    }
    // Only with one, so that every other pipeline's identity stays what it was. The join's state
    // holds rows of both inputs: another input, key, condition, type, prefix, schema or watermark
    // would leave it inconsistent (docs/DESIGN.md, "Stream-stream joins", step 5).
    streamJoin.ifPresent(j -> identity.put("streamJoin", streamJoinIdentity(j)));
    return Collections.unmodifiableMap(identity);
  }

  private String streamJoinIdentity(StreamJoinSpec join) {
    InputSpec in = join.stream();
    String source =
        in.source() instanceof DeltaSourceSpec delta
            ? "delta " + delta.path()
            : "kafka " + ((KafkaSourceSpec) in.source()).topics().canonical();
    String schema =
        in.format()
            .map(
                f ->
                    f.columns().stream()
                        .map(c -> c.name() + ":" + c.type().canonical())
                        .collect(Collectors.joining(",", "[", "]")))
            .orElse("the source table's");
    return "type="
        + join.type().keyword()
        + "; on="
        + join.on()
        + "; time="
        + join.time().canonical()
        + "; prefix="
        + in.prefix()
        + "; source="
        + source
        + "; schema="
        + schema
        + "; watermark="
        + in.watermark().map(WatermarkSpec::column).orElse("none")
        + "; multiple="
        + watermark.map(w -> w.multiple().keyword()).orElse("min");
  }

  /** Returns the Delta table among the sinks, if the pipeline writes one. */
  public Optional<DeltaSinkSpec> deltaSink() {
    return sinks.stream()
        .filter(DeltaSinkSpec.class::isInstance)
        .map(DeltaSinkSpec.class::cast)
        .findFirst();
  }

  /**
   * Returns the Delta sink table, for what only a Delta table has (compaction, vacuum, partitions,
   * Parquet options).
   *
   * @throws IllegalStateException if the pipeline writes no Delta table ({@link #deltaSink} tells)
   */
  public DeltaSinkSpec sink() {
    return deltaSink()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Pipeline "
                        + id
                        + " writes no Delta table (its sinks: "
                        + sinkLocations()
                        + ")"));
  }

  /** The Delta sink's partition columns; none without a Delta sink. */
  public List<String> partitionBy() {
    return deltaSink().map(DeltaSinkSpec::partitionBy).orElse(List.of());
  }

  /** Where each sink writes ({@link SinkSpec#location}), in the declared order. */
  public List<String> sinkLocations() {
    return sinks.stream().map(SinkSpec::location).toList();
  }

  /** Returns the Kafka source, if the pipeline reads Kafka. */
  public Optional<KafkaSourceSpec> kafkaSource() {
    return source instanceof KafkaSourceSpec kafka ? Optional.of(kafka) : Optional.empty();
  }

  /** Returns the Delta source table, if the pipeline reads one. */
  public Optional<DeltaSourceSpec> deltaSource() {
    return source instanceof DeltaSourceSpec delta ? Optional.of(delta) : Optional.empty();
  }

  /**
   * Returns the columns the sink receives, in order: {@code window_start}, {@code window_end}
   * (windowed aggregations only), the group-by columns and the measures with an aggregation;
   * otherwise the schema columns, the derived columns that are new, and {@link
   * #KAFKA_METADATA_COLUMNS}, then the columns each join picks explicitly (a join without {@code
   * columns} adds the dimension's columns, known only once its table is read), then a stream join's
   * second input's declared columns with its prefix (none for left-semi). With a Delta source, the
   * table's columns come first, known only once it is read: the list then holds the derived and
   * picked columns only.
   */
  public List<String> outputColumns() {
    if (aggregate.isPresent()) {
      return aggregate.get().outputColumns();
    }
    Set<String> columns = new LinkedHashSet<>();
    format.ifPresent(f -> f.columns().forEach(c -> columns.add(c.name())));
    for (TransformStep step : transforms) {
      if (step instanceof TransformStep.Derive derive) {
        columns.addAll(derive.columns().keySet());
      }
    }
    if (format.isPresent()) {
      columns.addAll(KAFKA_METADATA_COLUMNS);
    }
    joins.forEach(join -> join.columns().ifPresent(columns::addAll));
    streamJoin
        .filter(j -> j.type() != StreamJoinType.LEFT_SEMI)
        .flatMap(
            j ->
                j.stream()
                    .format()
                    .map(
                        f -> f.columns().stream().map(c -> j.stream().prefixed(c.name())).toList()))
        .ifPresent(columns::addAll);
    return List.copyOf(columns);
  }
}
