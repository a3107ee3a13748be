package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.SchemaEvolutionSpec;
import dev.tributary.config.Size;
import dev.tributary.config.StartingVersion;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.TopicSelection;
import dev.tributary.config.TransformStep;
import dev.tributary.config.UpsertSpec;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.engine.ChangeRules;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.EvolvingLayout;
import dev.tributary.service.engine.Expectations;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.engine.TableRowRules;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.WriterSchemaProcessor;
import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.join.StreamJoins;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.WriterRowDecoder;
import dev.tributary.service.sink.Sinks;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.service.stateful.LateEvents;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StatefulProcessor;
import dev.tributary.service.stateful.StreamJoinBinding;
import dev.tributary.service.stateful.StreamJoinProcessor;
import dev.tributary.service.upsert.UpsertRules;
import dev.tributary.service.upsert.UpsertSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableException;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TableRules;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.stream.StartingPoint;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Turns a validated {@link PipelineSpec} into the objects that run it. {@link #compile} does
 * everything that needs no I/O (schema, expressions, output columns), so {@code validate} can
 * report every problem without touching Kafka or storage.
 */
public final class PipelineFactory {
  private PipelineFactory() {}

  /**
   * Compiles the declaration's record schema and transforms.
   *
   * @throws PipelineDefinitionException naming the pipeline and the part that is wrong
   */
  public static CompiledPipeline compile(PipelineSpec spec) {
    if (spec.streamJoin().isPresent()) {
      return compileStreamJoin(spec);
    }
    List<String> problems = new ArrayList<>();
    if (spec.lateEvents().isPresent() && spec.watermark().isEmpty()) {
      problems.add(
          "late-events: not supported yet without a watermark (no event can be late without one); add"
              + " watermark: { column: <event time column>, delay: 10 minutes } or remove late-events");
    }
    if (spec.deltaSource().isPresent()) {
      // The source table's schema is the input schema: the query is compiled against it at start
      // (bindSource), once the table is read.
      if (!problems.isEmpty()) {
        throw new PipelineDefinitionException(spec.id(), problems);
      }
      return new CompiledPipeline(spec, null, null, null, Optional.empty());
    }
    RecordDecoder parser;
    try {
      parser = RecordDecoders.forFormat(spec.id(), spec.format().orElseThrow(), spec.secrets());
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      throw new PipelineDefinitionException(spec.id(), problems);
    }
    return compileQuery(
        spec,
        parser,
        StatelessProcessor.transformInput(parser.schema()),
        transforms -> new StatelessProcessor(spec.id(), parser, transforms),
        problems,
        takesAllColumns(spec)
            ? " (with columns: all, expressions see only the columns every record has: "
                + String.join(", ", StatelessProcessor.transformInput(parser.schema()).fieldNames())
                + " and derived ones; the writer schema's fields differ per topic and are known"
                + " only when records arrive)"
            : "");
  }

  /**
   * A pipeline with a stream-stream join: its main input compiled alone (the left side, {@link
   * PipelineSpec#mainInput}), the join bound to the left rows and the second input's format, and
   * the operators after the join ({@code deduplicate}, window {@code aggregate}) compiled against
   * the joined rows ({@link #afterJoin}). With a Delta table as either input, the columns are known
   * at start: the pipeline is left unbound and {@link StreamJoinInputs#bind} binds it then.
   */
  private static CompiledPipeline compileStreamJoin(PipelineSpec spec) {
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    List<String> problems = new ArrayList<>();
    if (takesAllColumns(spec)) {
      problems.add(
          "format: columns: all with a stream-stream join is not built yet (issue 25): the left"
              + " rows must have the declared columns; declare the schema");
    }
    if (!problems.isEmpty()) {
      throw new PipelineDefinitionException(spec.id(), problems);
    }
    CompiledPipeline main = compile(spec.mainInput());
    if (main.awaitsSourceSchema() || join.stream().format().isEmpty()) {
      // a Delta table as either input: its columns are known at start, when the tables are open;
      // the join is bound then (StreamJoinInputs.bind)
      return new CompiledPipeline(spec, null, null, null, Optional.empty(), Optional.empty());
    }
    RecordDecoder right;
    try {
      right = RecordDecoders.forFormat(spec.id(), join.stream().format().get(), spec.secrets());
    } catch (IllegalArgumentException e) {
      throw new PipelineDefinitionException(
          spec.id(), List.of("join[" + spec.joins().size() + "].stream." + e.getMessage()));
    }
    return withStreamJoin(spec, main, right);
  }

  private static CompiledPipeline withStreamJoin(
      PipelineSpec spec, CompiledPipeline left, RecordDecoder right) {
    StreamJoinBinding binding;
    try {
      binding =
          StreamJoinBinding.of(
              spec.streamJoin().orElseThrow(),
              spec.watermark(),
              right,
              left.processor().outputSchema());
    } catch (IllegalArgumentException e) {
      throw new PipelineDefinitionException(spec.id(), List.of(e.getMessage()));
    }
    return joined(spec, left, binding);
  }

  /**
   * A pipeline with a bound stream-stream join: the left side's query, the join, and the operators
   * after the join ({@code deduplicate}, window {@code aggregate}) compiled against the joined rows
   * ({@link #afterJoin}) — for Kafka inputs at compile time, for a Delta table as either input at
   * start ({@link StreamJoinInputs#bind}).
   *
   * @throws PipelineDefinitionException naming the pipeline and each column the operators after the
   *     join lack, with "the columns after join[N]"
   */
  static CompiledPipeline joined(
      PipelineSpec spec, CompiledPipeline left, StreamJoinBinding binding) {
    List<String> problems = new ArrayList<>();
    Optional<StatefulPlan> after =
        spec.deduplicate().isEmpty() && spec.aggregate().isEmpty()
            ? Optional.empty()
            : StatefulPlan.compile(afterJoin(spec), binding.outputSchema(), problems);
    if (!problems.isEmpty()) {
      throw new PipelineDefinitionException(
          spec.id(),
          problems.stream()
              .map(p -> p + " (the columns after join[" + spec.joins().size() + "])")
              .toList());
    }
    return new CompiledPipeline(
        spec, left.parser(), left.transforms(), left.processor(), after, Optional.of(binding));
  }

  /**
   * The declaration of the stateful operators after a stream-stream join (issue 25, step 8): the
   * pipeline's {@code deduplicate} and {@code aggregate} over the joined rows, whose watermark
   * column is the join's event-time column they use (D2): the window's column (the left's watermark
   * column or the right's prefixed one; validate allows no other in append mode), else for a
   * deduplication the one input's watermark column (validate refuses it after two watermarked
   * inputs), with that input's delay. Its watermark's values come from the join ({@code
   * DownstreamWatermark}), never from the rows.
   */
  private static PipelineSpec afterJoin(PipelineSpec spec) {
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    Optional<WatermarkSpec> right =
        join.stream()
            .watermark()
            .map(
                w ->
                    new WatermarkSpec(
                        join.stream().prefixed(w.column()),
                        w.delay(),
                        WatermarkSpec.Policy.GLOBAL,
                        Optional.empty(),
                        w.multiple()));
    Optional<String> window = spec.aggregate().flatMap(a -> a.window()).map(w -> w.column());
    Optional<WatermarkSpec> watermark;
    if (window.isPresent() && right.isPresent() && right.get().column().equals(window.get())) {
      watermark = right;
    } else if (window.isPresent() || spec.watermark().isPresent()) {
      watermark = spec.watermark();
    } else {
      watermark = right;
    }
    return new PipelineSpec(
        spec.id(),
        spec.source(),
        spec.format(),
        spec.transforms(),
        spec.joins(),
        Optional.empty(),
        watermark,
        spec.deduplicate(),
        spec.aggregate(),
        spec.outputMode(),
        spec.sinks(),
        spec.quarantine(),
        spec.lateEvents(),
        spec.checkpoint(),
        spec.trigger(),
        spec.maintenance(),
        spec.backfill(),
        spec.storage(),
        spec.secrets(),
        spec.schemaEvolution(),
        spec.quarantineLimit(),
        spec.expectations());
  }

  /** Whether each record's writer schema gives its columns ({@code columns: all}). */
  public static boolean takesAllColumns(PipelineSpec spec) {
    return spec.format().map(f -> f.takesAllColumns()).orElse(false);
  }

  /**
   * Compiles the query of a pipeline with a Delta source against the source table's schema, read at
   * start; the pipeline itself when its source is Kafka (compiled already).
   *
   * @param sourceTable the source table's location, recorded in quarantine rows
   * @throws PipelineDefinitionException naming the pipeline and the column that is wrong, with the
   *     table's columns
   */
  public static CompiledPipeline bindSource(
      CompiledPipeline compiled, String sourceTable, StructType schema) {
    if (!compiled.awaitsSourceSchema()) {
      return compiled;
    }
    PipelineSpec spec = compiled.spec();
    String where =
        " (the columns of the source table "
            + sourceTable
            + ", read at start: "
            + String.join(", ", schema.fieldNames())
            + ")";
    return compileQuery(
        spec,
        null,
        schema,
        transforms ->
            StatelessProcessor.forRows(spec.id(), sourceTable, schema, transforms, List.of(), null)
                .rebuild(null, null),
        new ArrayList<>(),
        where);
  }

  /**
   * Compiles transforms and stateful operators over {@code input}, the columns the transforms see.
   *
   * @param steps makes the stateless steps of a stateful pipeline from the compiled transforms
   * @param where appended to each problem: where the input columns come from ("" when declared)
   */
  private static CompiledPipeline compileQuery(
      PipelineSpec spec,
      RecordDecoder parser,
      StructType input,
      Function<CompiledTransforms, StatelessProcessor> steps,
      List<String> problems,
      String where) {
    CompiledTransforms transforms = null;
    try {
      transforms = Transforms.compile(input, steps(spec.transforms()));
    } catch (ExpressionException e) {
      problems.add(e.getMessage() + where);
    } catch (IllegalArgumentException e) {
      problems.add(
          "transform: " + e.getMessage()); // e.g. a derived column name that cannot be a column
    }
    StatelessProcessor processor = null;
    Optional<StatefulPlan> stateful = Optional.empty();
    if (transforms != null) {
      processor = steps.apply(transforms);
      List<String> ruleProblems = new ArrayList<>();
      Expectations expectations =
          Expectations.compile(spec.expectations(), processor.transformedSchema(), ruleProblems);
      ruleProblems.forEach(p -> problems.add(p + where));
      processor = processor.withExpectations(expectations);
      List<String> queryProblems = new ArrayList<>();
      // With joins, the plan is compiled again at start against the joined rows (bindJoins); here
      // the columns a join may add are left to that check.
      stateful =
          spec.joins().isEmpty()
              ? StatefulPlan.compile(spec, processor.outputSchema(), queryProblems)
              : StatefulPlan.compileBeforeJoins(
                  spec, processor.outputSchema(), fromJoin(spec), queryProblems);
      queryProblems.forEach(p -> problems.add(p + where));
      if (stateful.isEmpty() && partitionColumnsExist(spec, processor.outputSchema())) {
        try {
          processor = processor.rebuild(spec.partitionBy(), null);
        } catch (IllegalArgumentException e) {
          problems.add("sink.delta.partition-by: " + e.getMessage()); // e.g. a struct column
        }
      }
      StructType output = stateful.map(StatefulPlan::outputSchema).orElse(processor.outputSchema());
      Optional<UpsertSpec> upsert = spec.deltaSink().flatMap(DeltaSinkSpec::upsert);
      if (upsert.isPresent() && takesAllColumns(spec)) {
        // the key columns are each table's (checked when it is created); delete-when sees the
        // fixed columns
        deleteWhen(spec, output, problems);
      } else if (upsert.isPresent() && stateful.isEmpty() && spec.joins().isEmpty()) {
        // with joins, the sink's columns are known once the dimensions are read (changeRules)
        UpsertRules.compile(upsert.get(), output, problems);
      }
      // with joins, a key naming a column a join adds is checked again in bindJoins
      problems.addAll(
          Sinks.problems(spec, output, spec.joins().isEmpty() ? name -> false : fromJoin(spec)));
      for (String p : spec.partitionBy()) {
        // a join adds columns known once its table is read: bindJoins checks them then
        if (output.indexOf(p) < 0 && spec.joins().isEmpty()) {
          problems.add(
              "sink.delta.partition-by: column '"
                  + p
                  + "' is not an output column; output columns are "
                  + output.fieldNames());
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new PipelineDefinitionException(spec.id(), problems);
    }
    return new CompiledPipeline(spec, parser, transforms, processor, stateful);
  }

  /**
   * The {@code delete-when} predicate of a {@code columns: all} upsert, compiled over the fixed
   * output columns; null when none is declared or it does not compile (added to {@code problems}).
   */
  private static CompiledPredicate deleteWhen(
      PipelineSpec spec, StructType output, List<String> problems) {
    Optional<String> text =
        spec.deltaSink().flatMap(DeltaSinkSpec::upsert).flatMap(u -> u.deleteWhen());
    if (text.isEmpty()) {
      return null;
    }
    try {
      return ExpressionCompiler.compilePredicate(text.get(), output);
    } catch (ExpressionException e) {
      problems.add(
          "sink.delta.delete-when: "
              + e.getMessage()
              + " (with columns: all it sees only "
              + output.fieldNames()
              + ")");
      return null;
    }
  }

  /**
   * Opens the dimension tables of the pipeline's joins and returns the pipeline with a processor
   * that applies them (its output schema then ends with the dimensions' columns); the pipeline
   * itself when it declares no join. The processor closes the tables' stores.
   *
   * @throws dev.tributary.service.join.JoinException if a table cannot be read or does not fit its
   *     join
   * @throws PipelineDefinitionException if a partition column is not among the joined columns, or a
   *     sink does not fit them (a Kafka key over an unknown column, a column that is no Avro name)
   */
  public static CompiledPipeline bindJoins(CompiledPipeline pipeline) throws IOException {
    PipelineSpec spec = pipeline.spec();
    if (pipeline.streamJoin().isPresent() && !spec.joins().isEmpty()) {
      // the stream-static joins apply to the left side: the join is bound again to their rows
      CompiledPipeline left =
          bindJoins(
              new CompiledPipeline(
                  spec.mainInput(),
                  pipeline.parser(),
                  pipeline.transforms(),
                  pipeline.processor(),
                  Optional.empty()));
      return withStreamJoin(spec, left, pipeline.streamJoin().get().rightParser());
    }
    if (spec.joins().isEmpty()) {
      return pipeline;
    }
    StreamJoins joins =
        StreamJoins.open(
            spec.id(),
            spec.joins(),
            pipeline.processor().transformedSchema(),
            join -> ObjectStores.open(join.path(), s3Settings(join.storage().or(spec::storage))));
    try {
      Optional<StatefulPlan> stateful = Optional.empty();
      if (pipeline.stateful().isPresent()) {
        // The stateful operators read the joined rows: their columns can only be checked now.
        List<String> problems = new ArrayList<>();
        stateful = StatefulPlan.compile(spec, joins.outputSchema(), problems);
        if (!problems.isEmpty()) {
          throw new PipelineDefinitionException(
              spec.id(),
              problems.stream()
                  .map(p -> p + " (the columns after the joins, read from their dimension tables)")
                  .toList());
        }
      }
      StructType output = stateful.map(StatefulPlan::outputSchema).orElse(joins.outputSchema());
      List<String> sinkProblems = Sinks.problems(spec, output);
      if (!sinkProblems.isEmpty()) {
        throw new PipelineDefinitionException(
            spec.id(),
            sinkProblems.stream()
                .map(p -> p + " (the columns after the joins, read from their dimension tables)")
                .toList());
      }
      for (String p : spec.partitionBy()) {
        if (output.indexOf(p) < 0) {
          throw new PipelineDefinitionException(
              spec.id(),
              List.of(
                  "sink.delta.partition-by: column '"
                      + p
                      + "' is not an output column; output columns are "
                      + output.fieldNames()));
        }
      }
      StatelessProcessor processor =
          pipeline.processor().rebuild(stateful.isPresent() ? null : spec.partitionBy(), joins);
      return new CompiledPipeline(
          spec, pipeline.parser(), pipeline.transforms(), processor, stateful);
    } catch (RuntimeException e) {
      joins.close();
      throw e;
    }
  }

  /**
   * Whether a column the stateful part names may come from a join: one a join declares in {@code
   * columns}, or any column when a join adds its dimension's columns (known once read).
   */
  private static Predicate<String> fromJoin(PipelineSpec spec) {
    if (spec.joins().stream().anyMatch(j -> j.columns().isEmpty())) {
      return name -> true;
    }
    Set<String> picked = new HashSet<>();
    spec.joins().forEach(j -> picked.addAll(j.columns().orElseThrow()));
    return picked::contains;
  }

  private static boolean partitionColumnsExist(PipelineSpec spec, StructType output) {
    return spec.partitionBy().stream().allMatch(p -> output.indexOf(p) >= 0);
  }

  private static List<Step> steps(List<TransformStep> declared) {
    List<Step> steps = new ArrayList<>();
    for (TransformStep step : declared) {
      if (step instanceof TransformStep.Filter f) {
        steps.add(new Step.Filter(f.expression()));
      } else if (step instanceof TransformStep.Derive d) {
        steps.add(new Step.Derive(new LinkedHashMap<>(d.columns())));
      }
    }
    return steps;
  }

  /** The S3 settings of a declaration: its {@code storage.s3} section, or the AWS defaults. */
  public static S3Settings s3Settings(PipelineSpec spec) {
    return s3Settings(spec.storage());
  }

  /** The S3 settings of a {@code storage.s3} section, or the AWS defaults when absent. */
  public static S3Settings s3Settings(Optional<StorageSpec> storage) {
    S3Settings s3 = S3Settings.defaults();
    if (storage.isPresent()) {
      StorageSpec st = storage.get();
      if (st.endpoint().isPresent()) {
        s3 = s3.withEndpoint(URI.create(st.endpoint().get()));
      }
      if (st.region().isPresent()) {
        s3 = s3.withRegion(st.region().get());
      }
      if (st.pathStyle()) {
        s3 = s3.withPathStyleAccess();
      }
      if (st.accessKey().isPresent()) {
        s3 = s3.withCredentials(st.accessKey().get(), st.secretKey().get());
      }
    }
    return s3;
  }

  public static ObjectStore store(PipelineSpec spec, String location) throws IOException {
    return ObjectStores.open(location, s3Settings(spec));
  }

  public static KafkaSourceSettings sourceSettings(PipelineSpec spec, boolean ignoreRateLimit) {
    return sourceSettings(spec.id(), spec.kafkaSource().orElseThrow(), ignoreRateLimit);
  }

  /**
   * The settings of the second input of a pipeline's stream-stream join ({@code
   * join[0].stream.source.kafka}): its own topics, starting offsets and {@code
   * max-offsets-per-trigger}, in the pipeline's consumer group (lag tools see both inputs).
   */
  public static KafkaSourceSettings streamJoinSourceSettings(
      PipelineSpec spec, boolean ignoreRateLimit) {
    KafkaSourceSpec kafka = (KafkaSourceSpec) spec.streamJoin().orElseThrow().stream().source();
    return sourceSettings(spec.id(), kafka, ignoreRateLimit);
  }

  private static KafkaSourceSettings sourceSettings(
      String pipelineId, KafkaSourceSpec kafka, boolean ignoreRateLimit) {
    List<String> topics = List.of();
    Optional<Pattern> pattern = Optional.empty();
    if (kafka.topics() instanceof TopicSelection.Topics t) {
      topics = t.names();
    } else if (kafka.topics() instanceof TopicSelection.TopicPattern p) {
      pattern = Optional.of(p.pattern());
    }
    return new KafkaSourceSettings(
        pipelineId,
        kafka.bootstrapServers(),
        topics,
        pattern,
        kafka.startingOffsets(),
        ignoreRateLimit ? OptionalLong.empty() : kafka.maxOffsetsPerTrigger(),
        kafka.failOnDataLoss(),
        kafka.properties(),
        KafkaSourceSettings.Timeouts.from(kafka.properties()),
        kafka.assignment());
  }

  /**
   * Opens the Delta source table of a pipeline ({@code source.delta}) in {@code store}: its latest
   * snapshot, whose schema is the input schema.
   *
   * @param ignoreRateLimit a {@code once} trigger: one batch with everything available (as Kafka's)
   */
  public static DeltaTableSource deltaSource(
      PipelineSpec spec, ObjectStore store, boolean ignoreRateLimit) throws IOException {
    DeltaSourceSpec delta = spec.deltaSource().orElseThrow();
    StartingPoint start = startingPoint(delta.startingVersion());
    SourceLimits limits =
        ignoreRateLimit
            ? SourceLimits.unlimited()
            : SourceLimits.of(
                delta.maxFilesPerTrigger().isPresent()
                    ? delta.maxFilesPerTrigger().getAsLong()
                    : null,
                delta.maxBytesPerTrigger().map(Size::bytes).orElse(null));
    return new DeltaTableSource(
        spec.id(),
        DeltaTable.open(store, TableOptions.defaults()),
        start,
        limits,
        new ChangeOptions(delta.ignoreDeletes(), delta.skipChangeCommits()));
  }

  /**
   * The table format's starting point of a parsed {@code starting-version}: the key is parsed once,
   * by {@link StartingVersion#parse}, and only mapped here.
   */
  public static StartingPoint startingPoint(StartingVersion version) {
    if (version instanceof StartingVersion.AtVersion v) {
      return new StartingPoint.AtVersion(v.version());
    }
    if (version instanceof StartingVersion.AtTimestamp t) {
      return new StartingPoint.AtTimestamp(t.instant());
    }
    return version instanceof StartingVersion.Latest
        ? new StartingPoint.Latest()
        : new StartingPoint.Earliest();
  }

  public static DataWriteOptions writeOptions(DeltaSinkSpec sink) {
    DataWriteOptions.Codec codec =
        switch (sink.compression()) {
          case SNAPPY -> DataWriteOptions.Codec.SNAPPY;
          case ZSTD -> DataWriteOptions.Codec.ZSTD;
          case GZIP -> DataWriteOptions.Codec.GZIP;
          case NONE -> DataWriteOptions.Codec.UNCOMPRESSED;
        };
    return new DataWriteOptions(sink.targetFileSize().bytes(), codec);
  }

  public static TableOptions tableOptions(PipelineSpec spec) {
    TableOptions options =
        TableOptions.defaults()
            .withLogCheckpointInterval(spec.maintenance().logCheckpointInterval());
    // without a Delta sink the side tables keep the defaults
    return spec.deltaSink().map(d -> options.withDataWriteOptions(writeOptions(d))).orElse(options);
  }

  /** Opens the sink table (creating it on first use) for the compiled pipeline. */
  public static DeltaTableSink sink(CompiledPipeline pipeline, ObjectStore store)
      throws IOException {
    PipelineSpec spec = pipeline.spec();
    if (evolves(pipeline)) {
      DeltaTable table = DeltaTable.open(store, tableOptions(spec));
      EvolvingLayout layout =
          EvolvingLayout.open(
              spec.id(),
              table,
              pipeline.outputSchema(),
              spec.sink().partitionBy(),
              spec.schemaEvolution());
      return new DeltaTableSink(
          spec.id(), store, table, layout, spec.sink().partitionBy(), writeOptions(spec.sink()));
    }
    DeltaTable table = DeltaTable.open(store, tableOptions(spec));
    Optional<TableRowRules> rules = rowRules(pipeline, table);
    if (rules.isPresent()) {
      return new DeltaTableSink(
          spec.id(),
          store,
          table,
          rules.get(),
          spec.sink().partitionBy(),
          writeOptions(spec.sink()));
    }
    return new DeltaTableSink(
        spec.id(),
        store,
        table,
        pipeline.outputSchema(),
        spec.sink().partitionBy(),
        writeOptions(spec.sink()));
  }

  /**
   * The row rules (CHECK constraints, invariants, generated and identity columns) of an existing
   * sink table that a stateless appending pipeline enforces, compiled against the table's columns;
   * empty when the table declares none, does not exist yet, or the pipeline is stateful or fans out
   * to more sinks (its sink then refuses a table that uses them, by feature name).
   *
   * @throws IllegalStateException naming each rule the pipeline cannot honour
   */
  public static Optional<TableRowRules> rowRules(CompiledPipeline pipeline, DeltaTable table)
      throws IOException {
    // the rows of a fan-out go to every sink as they are: only a pipeline whose one sink is this
    // table can turn them into the table's rows
    if (pipeline.stateful().isPresent()
        || pipeline.streamJoin().isPresent()
        || pipeline.spec().sinks().size() != 1
        || !table.exists()) {
      return Optional.empty();
    }
    Snapshot snapshot = table.snapshot();
    TableRules rules;
    try {
      rules = TableRules.of(snapshot);
    } catch (TableException e) {
      throw new IllegalStateException(
          "Pipeline " + pipeline.spec().id() + ": " + e.getMessage(), e);
    }
    if (rules.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        TableRowRules.compile(
            pipeline.spec().id(),
            table.location(),
            rules,
            snapshot.schema(),
            pipeline.outputSchema()));
  }

  /**
   * Opens the sink table (creating it on first use) with the sink the output mode needs: append for
   * stateless and append-mode pipelines, merge by key for update mode, overwrite for complete.
   */
  public static TableSink modeSink(CompiledPipeline pipeline, ObjectStore store)
      throws IOException {
    PipelineSpec spec = pipeline.spec();
    if (spec.sink().upsert().isPresent()
        && pipeline.stateful().isEmpty()
        && spec.sink().upsert().get().history() == UpsertSpec.History.SCD2) {
      return UpsertSink.keepingHistory(
          spec.id(),
          store,
          DeltaTable.open(store, tableOptions(spec)),
          pipeline.outputSchema(),
          spec.sink().partitionBy(),
          UpsertRules.mergeSpec(spec.sink().upsert().get()));
    }
    if (spec.sink().upsert().isPresent() && pipeline.stateful().isEmpty()) {
      return new UpsertSink(
          spec.id(),
          store,
          DeltaTable.open(store, tableOptions(spec)),
          pipeline.outputSchema(),
          spec.sink().partitionBy(),
          UpsertRules.mergeSpec(spec.sink().upsert().get()));
    }
    if (pipeline.stateful().isEmpty()
        || !pipeline.stateful().get().aggregates()
        || spec.outputMode() == OutputMode.APPEND) {
      return sink(pipeline, store);
    }
    DeltaTable table = DeltaTable.open(store, tableOptions(spec));
    DeltaTableSink.Write write =
        spec.outputMode() == OutputMode.COMPLETE
            ? new DeltaTableSink.Write.Overwrite()
            : new DeltaTableSink.Write.MergeByKey(pipeline.stateful().get().keyColumns());
    return new DeltaTableSink(
        spec.id(), store, table, pipeline.outputSchema(), spec.sink().partitionBy(), write);
  }

  /**
   * Opens the late-events table (creating it on first use): the transformed rows with Kafka
   * metadata, then why each was late. A table an older release created without the {@code _late_}
   * columns gets them added first, in a commit of its own.
   */
  public static DeltaTableSink lateEvents(CompiledPipeline pipeline, ObjectStore store)
      throws IOException {
    PipelineSpec spec = pipeline.spec();
    DataWriteOptions options =
        new DataWriteOptions(
            DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.ZSTD);
    DeltaTable table = DeltaTable.open(store, tableOptions(spec));
    if (table.exists()
        && LateEvents.isPreviousSchema(table.snapshot().schema(), pipeline.lateEventsInput())) {
      // Created by a release before the _late_ columns: add them (nullable; older rows read null).
      table.addColumns(LateEvents.COLUMNS);
    }
    return new DeltaTableSink(
        spec.id(), store, table, pipeline.lateEventsSchema(), List.of(), options);
  }

  /**
   * The processor of the pipeline: its stateless processor, or a stateful one whose state lives in
   * the checkpoint store and whose working copies live under {@code localDir}.
   */
  public static RecordProcessor processor(
      CompiledPipeline pipeline, ObjectStore checkpointStore, Path localDir) {
    return processor(pipeline, checkpointStore, localDir, null);
  }

  /**
   * {@link #processor(CompiledPipeline, ObjectStore, Path, TableSink)} for a run's engine, which
   * ends every batch ({@link RecordProcessor#endBatch}) before it reads the batch's outputs: a
   * stateless pipeline's Kafka records are then decoded a chunk ahead on a worker thread ({@link
   * StatelessProcessor#decodingAhead}; the stateful ones always are), with the same outputs in the
   * same order. Not for a caller that reads a record's rows as soon as {@code process} returns (a
   * quarantine replay): that one takes {@link #processor(CompiledPipeline, ObjectStore, Path,
   * TableSink)}.
   */
  public static RecordProcessor runProcessor(
      CompiledPipeline pipeline, ObjectStore checkpointStore, Path localDir, TableSink sink) {
    RecordProcessor processor = processor(pipeline, checkpointStore, localDir, sink);
    return processor instanceof StatelessProcessor stateless
        ? stateless.decodingAhead()
        : processor;
  }

  /**
   * Whether the sink's columns evolve: a stateless pipeline of records with a schema-evolution
   * section.
   */
  public static boolean evolves(CompiledPipeline pipeline) {
    return !pipeline.spec().schemaEvolution().equals(SchemaEvolutionSpec.DEFAULT)
        && pipeline.stateful().isEmpty()
        && pipeline.streamJoin().isEmpty()
        && pipeline.spec().deltaSource().isEmpty();
  }

  /**
   * {@link #processor(CompiledPipeline, ObjectStore, Path)} writing to {@code sink}: when the
   * sink's columns evolve ({@link DeltaTableSink#layout}), the stateless processor turns rows into
   * the table's.
   */
  public static RecordProcessor processor(
      CompiledPipeline pipeline, ObjectStore checkpointStore, Path localDir, TableSink sink) {
    if (pipeline.streamJoin().isPresent()) {
      return new StreamJoinProcessor(
          pipeline.spec().id(),
          pipeline.processor(),
          pipeline.streamJoin().get(),
          pipeline.stateful(),
          checkpointStore,
          localDir);
    }
    if (pipeline.stateful().isEmpty() && takesAllColumns(pipeline.spec())) {
      Optional<UpsertSpec> upsert = pipeline.spec().deltaSink().flatMap(DeltaSinkSpec::upsert);
      WriterRowDecoder decoder = (WriterRowDecoder) pipeline.parser();
      List<String> problems = new ArrayList<>();
      CompiledPredicate deleteWhen =
          deleteWhen(pipeline.spec(), pipeline.processor().outputSchema(), problems);
      return new WriterSchemaProcessor(
          upsert.isPresent() && upsert.get().keyFromRecord() ? decoder.withRecordKeys() : decoder,
          pipeline.processor(),
          deleteWhen,
          upsert.isPresent()
              ? WriterSchemaProcessor.Changes.MERGED
              : WriterSchemaProcessor.Changes.APPENDED,
          upsert.flatMap(UpsertSpec::sequenceBy).orElse(null));
    }
    if (pipeline.stateful().isEmpty()) {
      if (pipeline.spec().deltaSink().flatMap(DeltaSinkSpec::upsert).isPresent()) {
        return pipeline.processor().withChanges(changeRules(pipeline));
      }
      if (sink instanceof DeltaTableSink delta && delta.layout().isPresent()) {
        return pipeline.processor().evolving(delta.layout().get(), pipeline.spec().partitionBy());
      }
      if (sink instanceof DeltaTableSink delta && delta.rowRules().isPresent()) {
        return pipeline.processor().withTableRules(delta.rowRules().get());
      }
      return pipeline.processor();
    }
    // the bound stateless steps: with the joins, if any (bindJoins)
    return new StatefulProcessor(
        pipeline.spec().id(),
        pipeline.processor(),
        pipeline.stateful().get(),
        checkpointStore,
        localDir);
  }

  /**
   * The rules that turn the sink rows of an upserting pipeline into changes, compiled against its
   * output columns (the joined ones, once the dimensions are read).
   *
   * @throws PipelineDefinitionException naming the key, the column and the output columns
   */
  public static ChangeRules changeRules(CompiledPipeline pipeline) {
    List<String> problems = new ArrayList<>();
    Optional<ChangeRules> rules =
        UpsertRules.compile(
            pipeline.spec().sink().upsert().orElseThrow(), pipeline.outputSchema(), problems);
    if (rules.isEmpty()) {
      throw new PipelineDefinitionException(pipeline.spec().id(), problems);
    }
    return rules.get();
  }

  /**
   * Opens the quarantine table (creating it on first use): Kafka records with their provenance, or,
   * with a Delta source, the table rows with theirs ({@link QuarantineRows#SOURCE_ROW_SCHEMA});
   * with a stream-stream join, which input each record came from too ({@link
   * QuarantineRows#JOINED_SCHEMA}, the column added to a table that lacks it).
   */
  public static DeltaTableSink quarantine(PipelineSpec spec, ObjectStore store) throws IOException {
    DataWriteOptions options =
        new DataWriteOptions(
            DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.ZSTD);
    StructType schema =
        spec.deltaSource().isPresent() ? QuarantineRows.SOURCE_ROW_SCHEMA : QuarantineRows.SCHEMA;
    DeltaTable table = DeltaTable.open(store, tableOptions(spec));
    if (spec.streamJoin().isPresent()) {
      // Kafka inputs only (validated): the input column tells which one a record came from
      schema = QuarantineRows.JOINED_SCHEMA;
      if (table.exists() && table.snapshot().schema().indexOf(QuarantineRows.INPUT.name()) < 0) {
        // the table of the pipeline before it had the join: add the column (older rows read null)
        table.addColumns(List.of(QuarantineRows.INPUT));
      }
    }
    return new DeltaTableSink(spec.id(), store, table, schema, List.of(), options);
  }

  /**
   * Opens the checkpoint, refusing one written for a different query; a stateless pipeline's
   * declared type widening is not a different query ({@link SchemaWidening}).
   */
  public static Checkpoint checkpoint(PipelineSpec spec, ObjectStore store) throws IOException {
    return Checkpoint.open(store, spec.id(), spec.checkpointIdentity(), SchemaWidening.judge(spec));
  }
}
