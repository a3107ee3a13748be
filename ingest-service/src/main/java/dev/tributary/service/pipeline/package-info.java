/**
 * A declaration turned into something that runs: {@link
 * dev.tributary.service.pipeline.PipelineFactory#compile} checks and compiles a {@link
 * dev.tributary.config.PipelineSpec} without I/O (what {@code validate} runs), and {@link
 * dev.tributary.service.pipeline.PipelineRun#open} opens its stores, checkpoint, tables, source and
 * run loop, choosing the progress model from the declaration (exclusive or group assignment,
 * stateless or stateful), and refuses a start that would write over another checkpoint's data
 * ({@link dev.tributary.service.pipeline.NewCheckpointStart}).
 */
package dev.tributary.service.pipeline;
