/**
 * The implementation of pipeline parsing: composing the YAML node tree with SnakeYAML, environment
 * substitution, conversion of every key into the model with positions, and validation of meaning.
 * Nothing here is API; only {@link dev.tributary.config.internal.PipelineReader} is called from
 * outside the package, by {@link dev.tributary.config.PipelineParser}.
 */
package dev.tributary.config.internal;
