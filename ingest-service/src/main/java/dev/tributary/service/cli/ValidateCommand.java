package dev.tributary.service.cli;

import dev.tributary.config.AggregateSpec;
import dev.tributary.config.Assignment;
import dev.tributary.config.AvroFormatSpec;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.Durations;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.JoinSpec;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.PipelineValidationException;
import dev.tributary.config.ProtobufFormatSpec;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.Secrets;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.UpsertSpec;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.exchange.KeyedSource;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.sink.jdbc.JdbcTableSink;
import dev.tributary.service.stateful.ExchangeRecords;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * {@code tributary validate FILE}: parse, validate and compile; print the plan. Exit 0 valid, 1
 * invalid.
 */
final class ValidateCommand {
  private ValidateCommand() {}

  static int run(CliArguments args, PrintStream out, PrintStream err) {
    if (args.positional().size() != 1) {
      throw new CliArguments.UsageException("validate takes exactly one pipeline file");
    }
    Path file = Path.of(args.positional().get(0));
    if (!Files.isRegularFile(file)) {
      throw new CliArguments.UsageException("no such pipeline file: " + file);
    }
    PipelineSpec spec;
    try {
      spec = PipelineParser.parse(file);
    } catch (PipelineValidationException e) {
      err.println(e.getMessage()); // masked by the parser
      return 1;
    }
    // The plan echoes locations and addresses, any of which may hold a secret reference's value.
    Secrets secrets = spec.secrets();
    try {
      // With a stream join, the left side (the main input alone) is compiled here to check its
      // expressions and show its schema; the join and what follows it were checked by the parser
      // and are shown by StreamJoinPlan.
      CompiledPipeline pipeline =
          PipelineFactory.compile(spec.streamJoin().isPresent() ? spec.mainInput() : spec);
      Optional<SinkTableCheck.Result> table = SinkTableCheck.check(pipeline);
      if (table.isPresent() && table.get().refused()) {
        String why = table.get().line();
        err.println(
            secrets.mask(
                why.startsWith("Pipeline ")
                    ? why
                    : "Pipeline " + spec.id() + " (" + file + "): " + why));
        return 1;
      }
      out.println(secrets.mask("Pipeline " + spec.id() + " (" + file + ") is valid."));
      out.print(secrets.mask(plan(pipeline, spec)));
      table.ifPresent(t -> out.print(secrets.mask(lineOf("sink table", t.line()))));
      return 0;
    } catch (PipelineDefinitionException e) {
      err.println(secrets.mask(e.getMessage()));
      return 1;
    }
  }

  /** A human-readable summary of what the pipeline will do. */
  static String plan(CompiledPipeline pipeline) {
    return plan(pipeline, pipeline.spec());
  }

  /**
   * The plan of {@code spec}, whose main input {@code pipeline} compiled (all of it, or without its
   * stream join: {@link PipelineSpec#mainInput}).
   */
  private static String plan(CompiledPipeline pipeline, PipelineSpec spec) {
    StringBuilder b = new StringBuilder();
    if (spec.deltaSource().isPresent()) {
      var delta = spec.deltaSource().get();
      line(
          b,
          "source",
          "delta "
              + delta.path()
              + ", the files each new commit adds, from version "
              + delta.startingVersion()
              + ", at most "
              + deltaLimits(delta)
              + " per batch"
              + (delta.skipChangeCommits()
                  ? ", skipping commits that change or delete data"
                  : delta.ignoreDeletes()
                      ? ", skipping commits that only delete data"
                      : "; a commit that deletes or changes data stops the pipeline"));
      line(
          b,
          "records",
          "schema: the table's, read at start; columns the query names are checked then;"
              + " rows a transform fails on go to quarantine");
    } else {
      var kafka = spec.kafkaSource().orElseThrow();
      line(
          b,
          "source",
          "kafka "
              + kafka.bootstrapServers()
              + " "
              + kafka.topics().canonical()
              + ", new partitions from "
              + kafka.startingOffsets()
              + (kafka.maxOffsetsPerTrigger().isPresent()
                  ? ", at most " + kafka.maxOffsetsPerTrigger().getAsLong() + " offsets per batch"
                  : "")
              + (kafka.failOnDataLoss() ? "" : ", skipping deleted offsets")
              + (kafka.assignment() == Assignment.GROUP
                  ? ", partitions shared by the instances of consumer group tributary-" + spec.id()
                  : ""));
      var format = spec.format().orElseThrow();
      String registry =
          format instanceof AvroFormatSpec avro
              ? " (registry " + avro.registry().url() + ")"
              : format instanceof ProtobufFormatSpec proto
                  ? " message " + proto.message() + " (registry " + proto.registry().url() + ")"
                  : "";
      line(
          b,
          "records",
          format.keyword()
              + registry
              + (format.envelope().isDebezium()
                  ? ", Debezium change events (truncates: "
                      + format.envelope().onTruncate().keyword()
                      + ")"
                  : "")
              + ", "
              + format.columns().size()
              + " columns, at most "
              + format.maxRecordSize()
              + " each; unparseable records go to quarantine");
    }
    line(
        b,
        "transforms",
        spec.transforms().isEmpty()
            ? "none"
            : spec.transforms().stream().map(t -> t.canonical()).collect(Collectors.joining("; ")));
    for (int i = 0; i < spec.joins().size(); i++) {
      line(b, "join[" + i + "]", join(spec.joins().get(i)));
    }
    spec.streamJoin()
        .ifPresent(j -> StreamJoinPlan.lines(spec, j).forEach(l -> line(b, l.label(), l.text())));
    boolean repartitioned = repartition(spec).isPresent();
    spec.watermark()
        .ifPresent(
            w ->
                line(
                    b,
                    "watermark",
                    w.column()
                        + " - "
                        + Durations.format(w.delay())
                        + (repartitioned
                            ? " (group: the max event time over the source partitions, held by any with records still to read)"
                            : w.policy() == WatermarkSpec.Policy.GLOBAL
                                ? " (global: the max event time over all partitions)"
                                : " (per-partition: follows the slowest partition with records)")
                        + w.idleTimeout().map(t -> idleTimeout(t, repartitioned)).orElse("")
                        + spec.streamJoin().map(j -> StreamJoinPlan.watermark(w, j)).orElse("")));
    spec.deduplicate().ifPresent(d -> line(b, "deduplicate", d.canonical()));
    spec.aggregate()
        .ifPresent(
            a ->
                line(
                    b,
                    "aggregate",
                    a.window().map(w -> w.canonical()).orElse("running")
                        + " group by "
                        + a.groupBy()
                        + " measures "
                        + a.canonicalMeasures()));
    spec.aggregate().filter(a -> a.running()).ifPresent(a -> line(b, "state", runningState(a)));
    spec.lateEvents().ifPresent(l -> line(b, "late-events", "delta " + l.path()));
    repartition(spec).ifPresent(r -> line(b, "repartition", r));
    if (pipeline.awaitsSourceSchema()) {
      // validate reads no table: the source table's columns (and so the types) are known at start
      line(
          b,
          "output",
          (spec.aggregate().isPresent()
                  ? String.join(", ", spec.outputColumns())
                  : "the source table's columns"
                      + (spec.outputColumns().isEmpty()
                          ? ""
                          : ", then " + String.join(", ", spec.outputColumns())))
              + " (types known at start)");
    } else if (spec.aggregate().isPresent()
        && (!spec.joins().isEmpty() || spec.streamJoin().isPresent())) {
      // a group-by or measure column may come from a join: the types are known once its table is
      // read
      line(
          b,
          "output",
          String.join(", ", spec.outputColumns()) + " (types known at start, after the joins)");
    } else {
      line(
          b,
          "output",
          pipeline.outputSchema().fields().stream()
                  .map(f -> f.name() + " " + f.type().deltaName())
                  .collect(Collectors.joining(", "))
              + joinedColumns(spec)
              + spec.streamJoin().map(StreamJoinPlan::outputColumns).orElse("")
              + (spec.schemaEvolution().rescue() ? ", _rescued_data string" : "")
              + (spec.schemaEvolution().addsColumns() ? ", then the columns new fields add" : ""));
    }
    for (SinkSpec sink : spec.sinks()) {
      line(b, spec.sinks().size() == 1 ? "sink" : "sinks", describe(sink));
    }
    spec.deltaSink()
        .flatMap(DeltaSinkSpec::route)
        .ifPresent(
            r ->
                line(
                    b,
                    "route",
                    "one table per value of "
                        + r.expression()
                        + " under "
                        + spec.sink().tablesFolder()
                        + ", at most "
                        + r.maxRoutes()));
    spec.deltaSink()
        .flatMap(DeltaSinkSpec::upsert)
        .ifPresent(
            u ->
                line(
                    b,
                    "write",
                    "upsert by "
                        + u.key()
                        + u.sequenceBy().map(s -> ", latest " + s + " wins").orElse("")
                        + u.deleteWhen().map(d -> ", deletes where " + d).orElse("")
                        + ", "
                        + u.mergeStrategy().keyword()
                        + (u.history() == UpsertSpec.History.SCD2 ? ", history scd2" : "")));
    line(
        b,
        "quarantine",
        "delta "
            + spec.quarantine().path()
            + spec.quarantineLimit()
                .map(
                    l ->
                        ", fail a batch that quarantines more than "
                            + BigDecimal.valueOf(l.maxFraction())
                                .stripTrailingZeros()
                                .toPlainString()
                            + " of its records")
                .orElse(""));
    if (!spec.schemaEvolution().equals(SchemaEvolutionSpec.DEFAULT)) {
      line(
          b,
          "schema-evolution",
          "mode "
              + spec.schemaEvolution().mode().keyword()
              + (spec.schemaEvolution().addsColumns()
                  ? " (new top-level fields become nullable sink columns)"
                  : "")
              + ", rescue "
              + spec.schemaEvolution().rescue()
              + (spec.schemaEvolution().rescue()
                  ? " (undeclared fields and misfit values kept in _rescued_data)"
                  : ""));
    }
    line(b, "checkpoint", spec.checkpoint());
    line(b, "trigger", trigger(spec.trigger()));
    line(b, "output-mode", spec.outputMode().keyword());
    if (!spec.secrets().references().isEmpty()) {
      line(b, "environment", environment(spec.secrets().references()));
    }
    return b.toString();
  }

  /**
   * What each {@code ${NAME}} reference put in, a secret one as {@link Secrets#MASK}: the plan
   * above already shows the other values in place, this line says where they came from.
   */
  private static String environment(Map<String, String> references) {
    return references.entrySet().stream()
        .map(e -> "${" + e.getKey() + "} = " + e.getValue())
        .collect(Collectors.joining("; "));
  }

  /** How a stateful pipeline in group mode spreads its keys over the instances (docs/DESIGN.md). */
  private static Optional<String> repartition(PipelineSpec spec) {
    boolean group = spec.kafkaSource().map(k -> k.assignment() == Assignment.GROUP).orElse(false);
    if (!group || spec.deduplicate().isEmpty() && spec.aggregate().isEmpty()) {
      return Optional.empty();
    }
    List<String> by =
        ExchangeRecords.repartitionBy(
            spec.deduplicate().map(d -> d.keys()).orElse(null),
            spec.aggregate().map(a -> a.groupBy()).orElse(null));
    String topic = ExchangeRecords.topic(spec.id());
    // keyed-by: the types are checked at start (after the joins), the names here
    KeyedSource keyed = KeyedSource.of(spec, Optional.empty());
    if (keyed.skipsExchange()) {
      return Optional.of(
          keyed.describe()
              + "; state per partition under "
              + spec.checkpoint()
              + "/partitions/<n>/");
    }
    return Optional.of(
        "topic "
            + topic
            + " keyed by "
            + (by.isEmpty() ? "nothing (one partition: no key)" : by)
            + ", its partitions shared by consumer group "
            + topic
            + "; state per partition under "
            + spec.checkpoint()
            + "/partitions/<n>/"
            + keyed.reason().map(why -> "; " + why).orElse(""));
  }

  /**
   * A Delta source's rate limits as the plan shows them: Spark's defaulting (1000 files unless
   * bytes are limited).
   */
  private static String deltaLimits(DeltaSourceSpec delta) {
    List<String> limits = new ArrayList<>();
    if (delta.maxFilesPerTrigger().isPresent() || delta.maxBytesPerTrigger().isEmpty()) {
      limits.add(delta.maxFilesPerTrigger().orElse(1000) + " files");
    }
    delta.maxBytesPerTrigger().ifPresent(bytes -> limits.add(bytes + " (soft: at least one file)"));
    return String.join(" and ", limits);
  }

  /** One join of the plan: its type, table, keys, the columns it adds and its size limit. */
  private static String join(JoinSpec join) {
    return join.type().keyword()
        + " join with delta "
        + join.path()
        + " on "
        + join.on()
        + ", adds "
        + join.columns()
            .map(c -> c.toString())
            .orElse(
                "every dimension column but the keys and _kafka_* (read from the table at start)")
        + "; refused above "
        + join.maxSize()
        + " of data files; version re-read each batch, pinned on replay";
  }

  /**
   * The dimension columns the output ends with (validate reads no table, so their types are not
   * shown).
   */
  private static String joinedColumns(PipelineSpec spec) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < spec.joins().size(); i++) {
      b.append(", ")
          .append(
              spec.joins()
                  .get(i)
                  .columns()
                  .map(c -> String.join(", ", c) + " (from join[")
                  .orElse("the columns of join["))
          .append(i)
          .append("])");
    }
    return b.toString();
  }

  /**
   * What a running aggregation keeps: nothing is ever final, so nothing is evicted, and the
   * watermark cannot change that (its rows carry no event time).
   */
  private static String runningState(AggregateSpec a) {
    return a.groupBy().isEmpty()
        ? "one entry (a global aggregation: no group-by), never evicted"
        : "one entry per distinct "
            + a.groupBy()
            + " value, never evicted: bounded only by the number of"
            + " keys (the watermark does not evict a running aggregation)";
  }

  /** One sink as the plan shows it; credentials are left out (and masked anyway). */
  private static String describe(SinkSpec sink) {
    if (sink instanceof DeltaSinkSpec delta) {
      return "delta "
          + delta.path()
          + (delta.partitionBy().isEmpty() ? "" : " partitioned by " + delta.partitionBy())
          + ", files of "
          + delta.targetFileSize()
          + ", "
          + delta.compression().keyword();
    }
    if (sink instanceof JdbcSinkSpec jdbc) {
      return "jdbc "
          + jdbc.location()
          + (jdbc.user().isPresent() ? " as " + jdbc.user().get() : "")
          + ", "
          + jdbc.write().keyword()
          + (jdbc.key().isEmpty() ? "" : " by " + jdbc.key())
          + (jdbc.createTable() ? ", created if missing" : "")
          + ", exactly once by the progress table "
          + JdbcTableSink.PROGRESS_TABLE;
    }
    KafkaSinkSpec kafka = (KafkaSinkSpec) sink;
    return kafka.location()
        + ", value "
        + kafka.value().keyword()
        + kafka
            .registry()
            .map(r -> " (subject " + kafka.valueSubject() + " at " + r.url() + ")")
            .orElse("")
        + kafka.key().map(k -> ", key " + k).orElse("")
        + (kafka.provenanceHeaders() ? ", provenance headers" : "")
        + ", "
        + kafka.delivery().keyword();
  }

  private static String trigger(TriggerSpec trigger) {
    if (trigger instanceof TriggerSpec.ProcessingTime p) {
      return "processing-time " + Durations.format(p.interval());
    }
    if (trigger instanceof TriggerSpec.Continuous c) {
      return "continuous, progress every " + Durations.format(c.interval());
    }
    return trigger instanceof TriggerSpec.Once ? "once" : "available-now";
  }

  private static void line(StringBuilder b, String label, String text) {
    b.append(lineOf(label, text));
  }

  private static String lineOf(String label, String text) {
    return String.format("  %-12s %s%n", label + ":", text);
  }

  /** What {@code watermark.idle-timeout} does for this pipeline (it acts on group mode only). */
  private static String idleTimeout(Duration timeout, boolean repartitioned) {
    return repartitioned
        ? "; a repartition partition without input for "
            + Durations.format(timeout)
            + " no longer holds it back"
        : "; idle-timeout "
            + Durations.format(timeout)
            + " has no effect here (no partition holds this watermark back)";
  }
}
