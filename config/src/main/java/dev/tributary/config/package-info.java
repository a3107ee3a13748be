/**
 * Pipeline declarations: the immutable model of a pipeline file ({@link
 * dev.tributary.config.PipelineSpec} and its parts), the parser that turns YAML into it ({@link
 * dev.tributary.config.PipelineParser}) with file:line:column errors, the validation of its
 * meaning, and the JSON Schema of the format ({@code dev/tributary/config/pipeline.schema.json} on
 * the classpath).
 *
 * <p>This module owns the names users write in their files (the contract of {@code
 * docs/PIPELINE_REFERENCE.md}) and nothing that runs them: it must not use Spring, Kafka clients,
 * storage or the table format. Filter and derive expressions are kept as text here; the service
 * compiles them.
 */
package dev.tributary.config;
