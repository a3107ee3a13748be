/**
 * The expression language of a pipeline's {@code filter} and {@code derive} steps: SQL-like text
 * parsed with JSqlParser, type-checked against the input {@link
 * dev.tributary.table.types.StructType} and compiled once into a tree of small evaluator closures
 * that run per row without reflection or re-parsing. Deterministic by construction (no clock, no
 * randomness) so a replayed batch produces the same rows. Plain Java: it must not use Spring or
 * Kafka. The language is specified in {@code docs/EXPRESSIONS.md}.
 */
package dev.tributary.service.expr;
