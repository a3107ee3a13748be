package dev.tributary.service.exchange;

import dev.tributary.config.Assignment;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TopicSelection;
import dev.tributary.service.source.KeyedByCheck;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether a stateful group pipeline reads its source partitions' state directly ({@code
 * source.kafka.keyed-by}, docs/DESIGN.md "Keyed-by sources: no exchange") or goes through the
 * repartition topic. Directly when every row of one state key is, by the keyed-by contract, in one
 * source partition: the keyed-by columns are among the deduplication keys and among the
 * aggregation's group-by columns, and reach the stateful operators unchanged in name with a type
 * whose text form is unambiguous; the source is one topic; there is no dimension join (its tables
 * would be shared by the sub-pipelines). Otherwise the exchange is kept, and {@link #reason} says
 * why.
 *
 * @param keyedBy the declared columns (empty: not declared)
 * @param reason why the exchange is kept; empty when it is skipped (or keyed-by is not declared)
 */
public record KeyedSource(List<String> keyedBy, Optional<String> reason) {
  public KeyedSource {
    keyedBy = List.copyOf(keyedBy);
  }

  /** Whether the exchange is skipped: each source partition is its own sub-pipeline. */
  public boolean skipsExchange() {
    return !keyedBy.isEmpty() && reason.isEmpty();
  }

  /**
   * Decides for {@code spec}.
   *
   * @param input the stateful operators' input schema; empty when not known (validate before the
   *     joins are bound), then only the names are compared
   */
  public static KeyedSource of(PipelineSpec spec, Optional<StructType> input) {
    List<String> keyedBy =
        spec.kafkaSource()
            .filter(k -> k.assignment() == Assignment.GROUP)
            .map(KafkaSourceSpec::keyedBy)
            .orElse(List.of());
    if (keyedBy.isEmpty()
        || spec.deduplicate().isEmpty() && spec.aggregate().isEmpty()
        || spec.streamJoin().isPresent()) {
      return new KeyedSource(List.of(), Optional.empty());
    }
    List<String> why = new ArrayList<>();
    spec.deduplicate()
        .filter(d -> !d.keys().containsAll(keyedBy))
        .ifPresent(d -> why.add("the deduplication keys " + d.keys() + " do not contain them"));
    spec.aggregate()
        .filter(a -> !a.groupBy().containsAll(keyedBy))
        .ifPresent(a -> why.add("the group-by columns " + a.groupBy() + " do not contain them"));
    if (!(spec.kafkaSource().get().topics() instanceof TopicSelection.Topics topics)
        || topics.names().size() != 1) {
      why.add("the source is not exactly one topic");
    }
    if (!spec.joins().isEmpty()) {
      why.add("the pipeline joins dimension tables");
    }
    input.ifPresent(
        schema -> {
          for (String column : keyedBy) {
            int i = schema.indexOf(column);
            if (i < 0) {
              why.add("'" + column + "' does not reach the stateful operators");
            } else {
              DataType type = schema.fields().get(i).type();
              if (!KeyedByCheck.SUPPORTED.contains(type)) {
                why.add(
                    "'"
                        + column
                        + "' is "
                        + type.deltaName()
                        + " (keyed-by columns are strings, integral numbers or booleans)");
              }
            }
          }
        });
    return new KeyedSource(
        keyedBy,
        why.isEmpty()
            ? Optional.empty()
            : Optional.of(
                "keyed-by "
                    + keyedBy
                    + " is not used and the repartition topic is kept: "
                    + String.join("; ", why)));
  }

  /** One line for the start log and {@code validate}: the path the state's rows take. */
  public String describe() {
    return skipsExchange()
        ? "none: the source is keyed by "
            + keyedBy
            + " (checked on every record); each source partition is a sub-pipeline with its own"
            + " state"
        : reason.orElse("");
  }
}
