package dev.tributary.config;

/**
 * How a pipeline's instances share the partitions of its Kafka topics ({@code
 * source.kafka.assignment}).
 */
public enum Assignment {
  /**
   * One instance reads every partition (the default). The checkpoint's offsets log is the progress;
   * a second process on the same checkpoint is refused when it writes a batch's offsets entry.
   */
  EXCLUSIVE("exclusive"),
  /**
   * Every instance with the same declaration joins the consumer group {@code tributary-<pipeline>}
   * and reads only the partitions Kafka assigns it; the sink table's per-partition positions are
   * the progress and fence off an instance that lost a partition (docs/DESIGN.md, "Scale-out").
   * Stateless pipelines only.
   */
  GROUP("group");

  private final String keyword;

  Assignment(String keyword) {
    this.keyword = keyword;
  }

  /** The YAML keyword. */
  public String keyword() {
    return keyword;
  }
}
