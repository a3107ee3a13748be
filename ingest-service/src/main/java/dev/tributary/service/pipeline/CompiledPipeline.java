package dev.tributary.service.pipeline;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.stateful.LateEvents;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StreamJoinBinding;
import dev.tributary.table.types.StructType;
import java.util.Optional;

/**
 * A declaration with its schema and expressions compiled: everything but the I/O.
 *
 * @param processor the stateless steps (parse, transform); the whole processor of a stateless
 *     pipeline
 * @param stateful the watermark, deduplication and aggregation, when declared; with a stream-stream
 *     join, the deduplication and aggregation after it, compiled against the joined rows
 * @param streamJoin the stream-stream join, when declared: {@code processor} is then its left side
 *     (the main input's steps) and the sink's columns are the join's, or those of the operators
 *     after it
 */
public record CompiledPipeline(
    PipelineSpec spec,
    RecordDecoder parser,
    CompiledTransforms transforms,
    StatelessProcessor processor,
    Optional<StatefulPlan> stateful,
    Optional<StreamJoinBinding> streamJoin) {

  /** A pipeline without a stream-stream join. */
  public CompiledPipeline(
      PipelineSpec spec,
      RecordDecoder parser,
      CompiledTransforms transforms,
      StatelessProcessor processor,
      Optional<StatefulPlan> stateful) {
    this(spec, parser, transforms, processor, stateful, Optional.empty());
  }

  /**
   * Whether the query is still to be compiled against the source table's schema, read at start
   * ({@link PipelineFactory#bindSource}): a Delta source's pipeline before it is bound. Then {@code
   * parser}, {@code transforms} and {@code processor} are null.
   */
  public boolean awaitsSourceSchema() {
    return processor == null;
  }

  /** The columns of the sink table, in order. */
  public StructType outputSchema() {
    if (awaitsSourceSchema()) {
      throw new IllegalStateException(
          "Pipeline "
              + spec.id()
              + ": the output columns are known once the source"
              + " table is read (PipelineFactory.bindSource)");
    }
    if (streamJoin.isPresent()) {
      // the operators after the join, if any, read the joined rows
      return stateful.map(StatefulPlan::outputSchema).orElse(streamJoin.get().outputSchema());
    }
    return stateful.map(StatefulPlan::outputSchema).orElse(processor.outputSchema());
  }

  /**
   * The columns of the late-events table: the transformed rows with their Kafka metadata, then the
   * operator, watermark and window that left each out ({@link LateEvents}).
   */
  public StructType lateEventsSchema() {
    return LateEvents.schema(lateEventsInput());
  }

  /**
   * The input rows of the operators that drop late rows: the transformed rows; with a stream-stream
   * join followed by stateful operators, the joined rows (a late left row of the join has nulls in
   * the right columns); with a join alone, its left rows.
   */
  public StructType lateEventsInput() {
    if (streamJoin.isPresent() && stateful.isPresent()) {
      return streamJoin.get().outputSchema();
    }
    return processor.outputSchema();
  }
}
