package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.config.ColumnSpec;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.OutputMode;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.TopicSelection;
import dev.tributary.config.TransformStep;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.expr.ExpressionException;
import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.source.KafkaSourceSettings;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.storage.S3Settings;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

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
    List<String> problems = new ArrayList<>();
    unsupported(spec, problems);
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    for (ColumnSpec c : spec.format().columns()) {
      columns.put(c.name(), c.type().canonical());
    }
    StructType parsed = JsonRecordParser.schemaOf(columns);
    JsonRecordParser parser = new JsonRecordParser(parsed, spec.format().maxRecordSize().bytes());
    CompiledTransforms transforms = null;
    try {
      transforms = Transforms.compile(StatelessProcessor.transformInput(parsed), steps(spec.transforms()));
    } catch (ExpressionException e) {
      problems.add(e.getMessage());
    }
    StatelessProcessor processor = null;
    if (transforms != null) {
      processor = new StatelessProcessor(spec.id(), parser, transforms);
      for (String p : spec.sink().partitionBy()) {
        if (processor.outputSchema().indexOf(p) < 0) {
          problems.add("sink.delta.partition-by: column '" + p + "' is not an output column; output columns are "
              + processor.outputSchema().fieldNames());
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new PipelineDefinitionException(spec.id(), problems);
    }
    return new CompiledPipeline(spec, parser, transforms, processor);
  }

  /** Features declared in the format but not built into the engine yet are refused, never ignored. */
  private static void unsupported(PipelineSpec spec, List<String> problems) {
    String notYet = ": not supported yet by this version of Tributary; remove it (stateless pipelines only)";
    spec.watermark().ifPresent(w -> problems.add("watermark" + notYet));
    spec.deduplicate().ifPresent(d -> problems.add("deduplicate" + notYet));
    spec.aggregate().ifPresent(a -> problems.add("aggregate" + notYet));
    spec.lateEvents().ifPresent(l -> problems.add("late-events" + notYet));
    if (spec.outputMode() != OutputMode.APPEND) {
      problems.add("output-mode: " + spec.outputMode().keyword() + notYet);
    }
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
    S3Settings s3 = S3Settings.defaults();
    if (spec.storage().isPresent()) {
      StorageSpec st = spec.storage().get();
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
    var kafka = spec.source();
    List<String> topics = List.of();
    Optional<java.util.regex.Pattern> pattern = Optional.empty();
    if (kafka.topics() instanceof TopicSelection.Topics t) {
      topics = t.names();
    } else if (kafka.topics() instanceof TopicSelection.TopicPattern p) {
      pattern = Optional.of(p.pattern());
    }
    return new KafkaSourceSettings(spec.id(), kafka.bootstrapServers(), topics, pattern, kafka.startingOffsets(),
        ignoreRateLimit ? OptionalLong.empty() : kafka.maxOffsetsPerTrigger(), kafka.failOnDataLoss(),
        kafka.properties(), Duration.ofMinutes(2));
  }

  public static DataWriteOptions writeOptions(DeltaSinkSpec sink) {
    DataWriteOptions.Codec codec = switch (sink.compression()) {
      case SNAPPY -> DataWriteOptions.Codec.SNAPPY;
      case ZSTD -> DataWriteOptions.Codec.ZSTD;
      case GZIP -> DataWriteOptions.Codec.GZIP;
      case NONE -> DataWriteOptions.Codec.UNCOMPRESSED;
    };
    return new DataWriteOptions(sink.targetFileSize().bytes(), codec);
  }

  public static TableOptions tableOptions(PipelineSpec spec) {
    return TableOptions.defaults()
        .withLogCheckpointInterval(spec.maintenance().logCheckpointInterval())
        .withDataWriteOptions(writeOptions(spec.sink()));
  }

  /** Opens the sink table (creating it on first use) for the compiled pipeline. */
  public static DeltaTableSink sink(CompiledPipeline pipeline, ObjectStore store) throws IOException {
    PipelineSpec spec = pipeline.spec();
    return new DeltaTableSink(spec.id(), store, DeltaTable.open(store, tableOptions(spec)),
        pipeline.outputSchema(), spec.sink().partitionBy(), writeOptions(spec.sink()));
  }

  /** Opens the quarantine table (creating it on first use). */
  public static DeltaTableSink quarantine(PipelineSpec spec, ObjectStore store) throws IOException {
    DataWriteOptions options = new DataWriteOptions(DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.ZSTD);
    return new DeltaTableSink(spec.id(), store, DeltaTable.open(store, tableOptions(spec)), QuarantineRows.SCHEMA,
        List.of(), options);
  }

  /** Opens the checkpoint, refusing one written for a different query. */
  public static Checkpoint checkpoint(PipelineSpec spec, ObjectStore store) throws IOException {
    return Checkpoint.open(store, spec.id(), spec.checkpointIdentity());
  }

}
