package dev.tributary.service.pipeline;

import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.StatelessProcessor;
import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.table.types.StructType;

/** A declaration with its schema and expressions compiled: everything but the I/O. */
public record CompiledPipeline(
    PipelineSpec spec, JsonRecordParser parser, CompiledTransforms transforms, StatelessProcessor processor) {

  /** The columns of the sink table, in order. */
  public StructType outputSchema() {
    return processor.outputSchema();
  }
}
