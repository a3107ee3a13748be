package dev.tributary.service.sink;

import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.JdbcSinkSpec;
import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.RouteSpec;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.UpsertSpec;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.expr.CompiledExpression;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.sink.jdbc.JdbcTableSink;
import dev.tributary.service.sink.jdbc.PostgresDialect;
import dev.tributary.service.sink.kafka.AvroRowSchema;
import dev.tributary.service.sink.kafka.KafkaTopicSink;
import dev.tributary.service.sink.route.RoutedSink;
import dev.tributary.service.sink.route.WriterSchemaTable;
import dev.tributary.service.upsert.UpsertRules;
import dev.tributary.service.upsert.UpsertSink;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/** Opens the sinks a declaration names: one {@link TableSink}, a {@link FanOutSink} for several. */
public final class Sinks {
  private Sinks() {}

  /**
   * Opens every sink of the pipeline in the declared order (creating a Delta table or a database
   * table on first use where allowed, checking a topic exists).
   *
   * @param txns the checkpoint's batch keys (a Kafka sink's transactional id derives from them)
   * @param deltaStore the Delta sink table's store, present exactly when the pipeline has one
   * @param trigger the run's trigger: a continuous one sends Kafka records at once
   * @return the sink, or a {@link FanOutSink} of the sinks; close it if it is {@link AutoCloseable}
   */
  public static TableSink open(
      CompiledPipeline pipeline,
      TableTxns txns,
      Optional<ObjectStore> deltaStore,
      TriggerSpec trigger)
      throws IOException {
    PipelineSpec spec = pipeline.spec();
    List<TableSink> opened = new ArrayList<>();
    try {
      for (SinkSpec sink : spec.sinks()) {
        opened.add(open(pipeline, sink, txns, deltaStore, trigger));
      }
    } catch (IOException | RuntimeException e) {
      opened.forEach(Sinks::closeQuietly);
      throw e;
    }
    return opened.size() == 1 ? opened.get(0) : new FanOutSink(opened);
  }

  private static TableSink open(
      CompiledPipeline pipeline,
      SinkSpec sink,
      TableTxns txns,
      Optional<ObjectStore> deltaStore,
      TriggerSpec trigger)
      throws IOException {
    String id = pipeline.spec().id();
    if (sink instanceof DeltaSinkSpec delta && delta.route().isPresent()) {
      return routed(pipeline, delta, deltaStore.orElseThrow());
    }
    if (sink instanceof DeltaSinkSpec) {
      return PipelineFactory.modeSink(pipeline, deltaStore.orElseThrow());
    }
    if (sink instanceof JdbcSinkSpec jdbc) {
      return new JdbcTableSink(
          id, jdbc, pipeline.outputSchema(), new PostgresDialect(), JdbcTableSink.RETRY);
    }
    return new KafkaTopicSink(
        id,
        (KafkaSinkSpec) sink,
        pipeline.outputSchema(),
        txns,
        trigger instanceof TriggerSpec.Continuous
            ? KafkaTopicSink.Latency.IMMEDIATE
            : KafkaTopicSink.Latency.BATCHED,
        pipeline.spec().secrets());
  }

  /**
   * A Delta sink routed to many tables under {@code folder} (the path before {@code /{route}}),
   * each opened as the pipeline's one table would be (append or upsert).
   */
  private static RoutedSink routed(
      CompiledPipeline pipeline, DeltaSinkSpec delta, ObjectStore folder) throws IOException {
    RouteSpec route = delta.route().orElseThrow();
    if (PipelineFactory.takesAllColumns(pipeline.spec())) {
      return RoutedSink.open(
          folder,
          ExpressionCompiler.compile(route.expression(), pipeline.outputSchema()),
          route.maxRoutes(),
          (name, firstRow) -> writerSchemaTable(pipeline, delta, folder, name, firstRow),
          RoutedSink.Writes.BUFFERED);
    }
    return RoutedSink.open(
        folder,
        ExpressionCompiler.compile(route.expression(), pipeline.outputSchema()),
        route.maxRoutes(),
        (name, firstRow) -> PipelineFactory.modeSink(pipeline, ObjectStores.under(folder, name)),
        delta.upsert().isPresent() ? RoutedSink.Writes.BUFFERED : RoutedSink.Writes.STREAMED);
  }

  /**
   * A routed table of a {@code columns: all} pipeline: created with its first row's writer columns
   * then the fixed output columns; each batch opens its append or upsert sink over the table's
   * columns as they are then.
   */
  private static WriterSchemaTable writerSchemaTable(
      CompiledPipeline pipeline,
      DeltaSinkSpec delta,
      ObjectStore folder,
      String name,
      Object[] firstRow)
      throws IOException {
    ObjectStore store = ObjectStores.under(folder, name);
    PipelineSpec spec = pipeline.spec();
    Optional<UpsertSpec> upsert = delta.upsert();
    return WriterSchemaTable.open(
        store.location(),
        DeltaTable.open(store, PipelineFactory.tableOptions(spec)),
        pipeline.outputSchema(),
        (schema, key) ->
            upsert.isEmpty()
                ? new DeltaTableSink(
                    spec.id(),
                    store,
                    DeltaTable.open(store, PipelineFactory.tableOptions(spec)),
                    schema,
                    delta.partitionBy(),
                    PipelineFactory.writeOptions(delta))
                : upsertSink(spec, store, schema, delta, upsert.get(), key),
        upsert.isPresent() ? WriterSchemaTable.Mode.UPSERT : WriterSchemaTable.Mode.APPEND,
        upsert.map(UpsertSpec::key).orElse(List.of()),
        firstRow);
  }

  private static TableSink upsertSink(
      PipelineSpec spec,
      ObjectStore store,
      StructType schema,
      DeltaSinkSpec delta,
      UpsertSpec upsert,
      List<String> key)
      throws IOException {
    UpsertSpec keyed =
        new UpsertSpec(
            key,
            upsert.sequenceBy(),
            upsert.deleteWhen(),
            upsert.mergeStrategy(),
            upsert.history());
    DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(spec));
    return upsert.history() == UpsertSpec.History.SCD2
        ? UpsertSink.keepingHistory(
            spec.id(), store, table, schema, delta.partitionBy(), UpsertRules.mergeSpec(keyed))
        : new UpsertSink(
            spec.id(), store, table, schema, delta.partitionBy(), UpsertRules.mergeSpec(keyed));
  }

  /**
   * The problems of the sinks against the output columns, for {@code validate}: a Kafka key that
   * names an unknown column or does not compile, an Avro value whose columns are not all Avro
   * names.
   */
  public static List<String> problems(PipelineSpec spec, StructType output) {
    return problems(spec, output, name -> false);
  }

  /**
   * The problems of the sinks against the output columns known before the joins are bound: a Kafka
   * key naming a column that is not in {@code output} but for which {@code fromJoin} is true (a
   * join's declared column, or any column when a join adds all its dimension's) is left to the
   * check at start against the joined columns ({@code PipelineFactory.bindJoins}).
   */
  public static List<String> problems(
      PipelineSpec spec, StructType output, Predicate<String> fromJoin) {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < spec.sinks().size(); i++) {
      if (spec.sinks().get(i) instanceof DeltaSinkSpec delta && delta.route().isPresent()) {
        routeProblem(delta.route().get(), output).ifPresent(problems::add);
      }
      if (!(spec.sinks().get(i) instanceof KafkaSinkSpec kafka)) {
        continue;
      }
      String sink = (spec.sinks().size() == 1 ? "sink" : "sinks[" + i + "]") + ".kafka";
      if (kafka.value() == KafkaSinkSpec.Value.AVRO) {
        AvroRowSchema.problems(output)
            .forEach(p -> problems.add(sink + ".value: value: avro: " + p));
      }
      if (kafka.key().isPresent()) {
        try {
          ExpressionCompiler.compile(kafka.key().get(), output);
        } catch (ExpressionException e) {
          if (e.unknownColumn().filter(fromJoin).isEmpty()) {
            problems.add(
                sink
                    + ".key: "
                    + e.getMessage()
                    + " (the output columns: "
                    + output.fieldNames()
                    + ")");
          }
        }
      }
    }
    return problems;
  }

  /** Why the route expression cannot name tables: it does not compile, or is not a scalar. */
  private static Optional<String> routeProblem(RouteSpec route, StructType output) {
    try {
      CompiledExpression compiled = ExpressionCompiler.compile(route.expression(), output);
      if (!(compiled.type() instanceof PrimitiveType)) {
        return Optional.of(
            "sink.delta.route: the route is a "
                + compiled.type().deltaName()
                + ", but its value names a table folder; route by a string or number column (e.g."
                + " _kafka_topic)");
      }
      return Optional.empty();
    } catch (ExpressionException e) {
      return Optional.of("sink.delta.route: " + e.getMessage()); // names the output columns
    }
  }

  private static void closeQuietly(TableSink sink) {
    if (sink instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
  }
}
