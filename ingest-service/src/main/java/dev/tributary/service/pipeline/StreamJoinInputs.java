package dev.tributary.service.pipeline;

import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Size;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.service.engine.QuarantineRows.InputKind;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.stateful.StreamJoinBinding;
import dev.tributary.service.stateful.TableRowsInput;
import dev.tributary.storage.ObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import dev.tributary.table.data.DataWriteOptions;
import dev.tributary.table.stream.ChangeOptions;
import dev.tributary.table.stream.SourceLimits;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The inputs of a pipeline with a stream-stream join when either is a Delta table (issue 25;
 * docs/DESIGN.md, "Stream-stream joins", "A Delta table as an input"). A table's schema is known
 * only at start, so such a join is bound at start ({@link #bind}) rather than by {@code compile}:
 * the left side is the main input compiled against its table's columns (as {@link
 * PipelineFactory#bindSource} does for any Delta source), the right side the second input's table's
 * columns, prefixed; the keys and time columns are checked then, by name, with the pipeline's name
 * and the field in the error. The second input's table is read by a {@link DeltaTableSource} behind
 * {@code CompositeSource} (its facts {@code stream.0.delta.from/to}), and the quarantine's layout
 * depends on the inputs' kinds ({@link QuarantineRows#joinedSchema}).
 */
public final class StreamJoinInputs {
  private StreamJoinInputs() {}

  /** Whether the pipeline's stream-stream join reads a Delta table as its second input. */
  public static boolean secondIsTable(PipelineSpec spec) {
    return spec.streamJoin().map(j -> j.stream().source() instanceof DeltaSourceSpec).orElse(false);
  }

  /** Whether the pipeline has a stream-stream join with a Delta table as either input. */
  public static boolean bindsAtStart(PipelineSpec spec) {
    return spec.streamJoin().isPresent() && (spec.deltaSource().isPresent() || secondIsTable(spec));
  }

  /** What the main input delivers. */
  public static InputKind mainKind(PipelineSpec spec) {
    return spec.deltaSource().isPresent() ? InputKind.TABLE_ROWS : InputKind.RECORDS;
  }

  /** What the join's second input delivers. */
  public static InputKind secondKind(PipelineSpec spec) {
    return secondIsTable(spec) ? InputKind.TABLE_ROWS : InputKind.RECORDS;
  }

  /** The second input's table declaration ({@code join[0].stream.source.delta}). */
  public static DeltaSourceSpec secondTableSpec(PipelineSpec spec) {
    return (DeltaSourceSpec) spec.streamJoin().orElseThrow().stream().source();
  }

  /**
   * Opens the second input's table ({@code join[0].stream.source.delta}) in {@code store}: its
   * latest snapshot, whose schema is the right side's (prefixed).
   *
   * @param ignoreRateLimit a {@code once} trigger: one batch with everything available
   */
  public static DeltaTableSource secondTable(
      PipelineSpec spec, ObjectStore store, boolean ignoreRateLimit) throws IOException {
    DeltaSourceSpec delta = secondTableSpec(spec);
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
        PipelineFactory.startingPoint(delta.startingVersion()),
        limits,
        new ChangeOptions(delta.ignoreDeletes(), delta.skipChangeCommits()));
  }

  /**
   * Binds the join of a pipeline with a table as either input, once the tables are open: the left
   * side against the main table's columns (or as compiled, for Kafka), the right side against the
   * second table's columns (or the declared format, for Kafka).
   *
   * @param mainTable the main input's table, when it is one: its location and schema
   * @param secondTable the second input's table, when it is one
   * @throws PipelineDefinitionException naming the pipeline, the field and the column (a key or
   *     time column missing from a table or of the wrong type, a column the operators after the
   *     join lack)
   */
  public static CompiledPipeline bind(
      PipelineSpec spec, Optional<TableRowsInput> mainTable, Optional<TableRowsInput> secondTable) {
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    CompiledPipeline left = PipelineFactory.compile(spec.mainInput());
    if (mainTable.isPresent()) {
      left =
          PipelineFactory.bindSource(
              left, mainTable.get().location(), mainTable.get().tableSchema());
    }
    StructType leftSchema = left.processor().outputSchema();
    StreamJoinBinding binding;
    try {
      if (secondTable.isPresent()) {
        binding =
            StreamJoinBinding.ofTable(
                join,
                spec.watermark(),
                renamedFree(spec, secondTable.get(), leftSchema),
                leftSchema);
      } else {
        binding = StreamJoinBinding.of(join, spec.watermark(), kafkaDecoder(spec), leftSchema);
      }
      if (mainTable.isPresent()) {
        binding.checkedAgainstMainTable(mainTable.get().location());
      }
    } catch (IllegalArgumentException e) {
      throw new PipelineDefinitionException(spec.id(), List.of(e.getMessage()));
    }
    return PipelineFactory.joined(spec, left, binding);
  }

  /**
   * The second table, refused when a prefixed column would repeat a left column (validate checks
   * this for a declared format; a table's columns are known only at start).
   */
  private static TableRowsInput renamedFree(
      PipelineSpec spec, TableRowsInput table, StructType leftSchema) {
    String prefix = spec.streamJoin().orElseThrow().stream().prefix();
    List<String> clashes =
        table.tableSchema().fieldNames().stream()
            .map(c -> prefix + c)
            .filter(c -> leftSchema.indexOf(c) >= 0)
            .toList();
    if (!clashes.isEmpty()) {
      throw new IllegalArgumentException(
          "join[0].stream.prefix: the second input's table "
              + table.location()
              + " has columns that, prefixed '"
              + prefix
              + "', are named like main input columns: "
              + clashes
              + "; choose another prefix");
    }
    return table;
  }

  private static RecordDecoder kafkaDecoder(PipelineSpec spec) {
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    try {
      return RecordDecoders.forFormat(
          spec.id(), join.stream().format().orElseThrow(), spec.secrets());
    } catch (IllegalArgumentException e) {
      throw new PipelineDefinitionException(
          spec.id(), List.of("join[" + spec.joins().size() + "].stream." + e.getMessage()));
    }
  }

  /**
   * Opens the quarantine table of a joined pipeline with a table as an input, in the layout of its
   * inputs' kinds ({@link QuarantineRows#joinedSchema}); the columns a table of an earlier layout
   * lacks are added at start (nullable; older rows read null).
   */
  public static DeltaTableSink quarantine(PipelineSpec spec, ObjectStore store) throws IOException {
    StructType schema = QuarantineRows.joinedSchema(mainKind(spec), secondKind(spec));
    DeltaTable table = DeltaTable.open(store, PipelineFactory.tableOptions(spec));
    if (table.exists()) {
      StructType existing = table.snapshot().schema();
      List<StructField> missing = new ArrayList<>();
      for (StructField f : schema.fields()) {
        if (existing.indexOf(f.name()) < 0) {
          missing.add(f);
        }
      }
      if (!missing.isEmpty()) {
        table.addColumns(missing);
      }
    }
    return new DeltaTableSink(
        spec.id(),
        store,
        table,
        schema,
        List.of(),
        new DataWriteOptions(
            DataWriteOptions.DEFAULT_TARGET_FILE_SIZE, DataWriteOptions.Codec.ZSTD));
  }
}
