package dev.tributary.config;

/**
 * Where a pipeline's result rows go: one entry of {@code sink} (a single sink) or of {@code sinks}
 * (several sinks fed by the same batch, in the declared order). Each sink keeps its own idempotency
 * key, so every one of them receives each batch exactly once (docs/DESIGN.md, "Sinks beyond
 * Delta").
 */
public sealed interface SinkSpec permits DeltaSinkSpec, JdbcSinkSpec, KafkaSinkSpec {

  /** The sink's key in a pipeline file: {@code delta}, {@code jdbc} or {@code kafka}. */
  String keyword();

  /**
   * Where the sink writes, for messages and metric tags: the table path, {@code <url> table <name>}
   * or {@code kafka topic <name> at <servers>}. Never a credential (a JDBC URL's own parameters are
   * shown as written: pass secrets with {@code password}, which is masked).
   */
  String location();
}
