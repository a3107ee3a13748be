package dev.tributary.service.cli;

import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.Durations;
import dev.tributary.config.InputSpec;
import dev.tributary.config.JoinSide;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.StreamJoinType;
import dev.tributary.config.TimeBounds;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.pipeline.PipelineDefinitionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The lines {@code validate} prints for a stream-stream join (issue 25): the join, how long each
 * side keeps its rows (Spark's state watermark formula, {@link TimeBounds}), a warning for a side
 * never evicted, the operators after the join with the watermark they see, and what run does.
 */
final class StreamJoinPlan {
  private StreamJoinPlan() {}

  /** One line of the plan. */
  record Line(String label, String text) {}

  static List<Line> lines(PipelineSpec spec, StreamJoinSpec join) {
    String path = "join[" + spec.joins().size() + "]";
    InputSpec input = join.stream();
    List<Line> lines = new ArrayList<>();
    lines.add(
        new Line(
            path,
            join.type().keyword()
                + " stream-stream join with "
                + source(input)
                + " on "
                + join.on()
                + " = "
                + join.rightKeys()
                + (join.time().isEmpty()
                    ? ", no time condition"
                    : ", time " + join.time().text() + " (" + join.time().canonical() + ")")));
    if (spec.watermark().isEmpty()) {
      input
          .watermark()
          .ifPresent(
              w ->
                  lines.add(
                      new Line(
                          "watermark",
                          input.prefixed(w.column())
                              + " - "
                              + Durations.format(w.delay())
                              + " (the second input's; the main input has none, so the"
                              + " global watermark stays 0 with multiple: min)")));
    }
    TimeBounds bounds = TimeBounds.of(join, spec.watermark());
    List<String> never = new ArrayList<>();
    for (JoinSide side : JoinSide.values()) {
      lines.add(new Line("state", bounds.describe(side)));
      if (!bounds.evicts(side)) {
        never.add(side.keyword());
      }
    }
    if (!never.isEmpty()) {
      lines.add(
          new Line(
              "warning",
              "state of "
                  + path
                  + " is never evicted on the "
                  + String.join(" and ", never)
                  + " side"
                  + (never.size() == 2 ? "s" : "")
                  + ": it grows with every row of "
                  + (never.size() == 2 ? "both inputs" : "that input")));
    }
    after(spec, join).ifPresent(lines::add);
    boolean table = join.stream().format().isEmpty() || spec.deltaSource().isPresent();
    String run =
        "run and serve join the two inputs in each batch"
            + (table ? " (a Delta table's columns are read and checked at start)" : "")
            + (spec.deduplicate().isPresent() || spec.aggregate().isPresent()
                ? " and pass the joined rows to the operators after the join"
                : "")
            + "; backfill and replay-quarantine refuse this pipeline (first version)";
    lines.add(new Line("run", run));
    return lines;
  }

  /**
   * The operators after the join (step 8), in their order, and the watermark they see: the join's
   * output watermark (Spark's rule D1), on the event-time column they use (D2).
   */
  private static Optional<Line> after(PipelineSpec spec, StreamJoinSpec join) {
    List<String> operators = new ArrayList<>();
    spec.deduplicate().ifPresent(d -> operators.add("deduplicate"));
    spec.aggregate()
        .ifPresent(
            a ->
                operators.add(
                    "aggregate (" + a.window().map(w -> w.canonical()).orElse("running") + ")"));
    if (operators.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> rightTime = join.stream().watermarkColumn();
    Optional<String> column =
        spec.aggregate()
            .flatMap(a -> a.window())
            .map(w -> w.column())
            .or(() -> spec.watermark().map(WatermarkSpec::column))
            .or(() -> rightTime);
    return Optional.of(
        new Line(
            "after join",
            String.join(", then ", operators)
                + " over the joined rows"
                + column
                    .map(
                        c ->
                            ", event time "
                                + c
                                + ", with the join's output watermark max(0, min(left state"
                                + " watermark, right state watermark, watermark)); late rows"
                                + " judged by the same formula on the previous batch's watermark")
                    .orElse(", no event time (no input has a watermark): nothing is evicted")));
  }

  /** What the watermark line adds with a stream join: the second input's and the choice. */
  static String watermark(WatermarkSpec main, StreamJoinSpec join) {
    return join.stream()
        .watermark()
        .map(
            w ->
                "; with the second input's "
                    + join.stream().prefixed(w.column())
                    + " - "
                    + Durations.format(w.delay())
                    + ", the global watermark is the "
                    + main.multiple().keyword()
                    + " of the two (multiple: "
                    + main.multiple().keyword()
                    + "; an input without data yet counts as 0)")
        .orElse("; the second input has no watermark: the global watermark is this one");
  }

  /** The second input's columns at the end of the output (none for left-semi). */
  static String outputColumns(StreamJoinSpec join) {
    if (join.type() == StreamJoinType.LEFT_SEMI) {
      return "";
    }
    InputSpec input = join.stream();
    return input
        .format()
        .map(
            f ->
                ", "
                    + f.columns().stream()
                        .map(c -> input.prefixed(c.name()) + " " + c.type().canonical())
                        .collect(Collectors.joining(", ")))
        .orElse(
            ", then the second input's columns as "
                + input.prefix()
                + "<column> (from its table, known at start)");
  }

  private static String source(InputSpec input) {
    String format =
        input
            .format()
            .map(f -> f.keyword() + ", " + f.columns().size() + " columns")
            .orElse("the table's columns");
    String source =
        input.source() instanceof KafkaSourceSpec kafka
            ? "kafka " + kafka.bootstrapServers() + " " + kafka.topics().canonical()
            : "delta " + ((DeltaSourceSpec) input.source()).path();
    return source
        + " ("
        + format
        + " as "
        + input.prefix()
        + "<column>"
        + input
            .watermark()
            .map(w -> ", watermark " + w.column() + " - " + Durations.format(w.delay()))
            .orElse(", no watermark")
        + ")";
  }

  /**
   * Refuses a command that cannot take a stream-stream join in its first version ({@code backfill}
   * reads one input by timestamp, {@code replay-quarantine} replays one input's records), by the
   * pipeline's name, before it opens anything.
   */
  static void refuse(PipelineSpec spec, String command) {
    if (spec.streamJoin().isPresent()) {
      throw new PipelineDefinitionException(
          spec.id(),
          List.of(
              "join["
                  + spec.joins().size()
                  + "]: "
                  + command
                  + " is not supported with a stream-stream join (issue 25, first version): run"
                  + " or serve the pipeline instead"));
    }
  }
}
