package dev.tributary.config;

/**
 * The {@code source} section: exactly one of {@code kafka} ({@link KafkaSourceSpec}) or {@code
 * delta} ({@link DeltaSourceSpec}).
 */
public sealed interface SourceSpec permits KafkaSourceSpec, DeltaSourceSpec {

  /** The source kind as written in the file: {@code kafka} or {@code delta}. */
  String kind();
}
