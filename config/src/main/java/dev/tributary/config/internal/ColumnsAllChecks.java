package dev.tributary.config.internal;

import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.SinkSpec;

/**
 * The checks of {@code columns: all} that relate it to other parts (docs/DESIGN.md, "Every field of
 * the writer schema"). Its columns differ per writer schema and are known only when a record
 * arrives, so it is accepted only where every table is created by its first record and keeps its
 * own columns: a stateless pipeline (no watermark, deduplicate, aggregate or join: they name
 * columns every record must have) whose one sink is a routed Delta sink ({@code path: …/{route}}).
 * A single unrouted table would have to exist before its first record (the start-up guards, {@code
 * starting-offsets: table} and maintenance read it), so a single topic is routed too, by {@code
 * _kafka_topic}. Expressions ({@code transform}, {@code expectations}, {@code route}, {@code
 * delete-when}) see only the columns every record has ({@code _op}, {@code _source_ts}, the Kafka
 * columns, derived ones): the service compiles them against those and names the rule.
 */
final class ColumnsAllChecks {
  private final Problems problems;
  private final Draft draft;

  ColumnsAllChecks(Problems problems, Draft draft) {
    this.problems = problems;
    this.draft = draft;
  }

  void check() {
    if (draft.format() == null || !draft.format().takesAllColumns()) {
      return;
    }
    String at = "format." + draft.format().keyword() + ".columns";
    for (String part : new String[] {"watermark", "deduplicate", "aggregate", "join"}) {
      if (problems.declared(part)) {
        problems.atKey(part, ColumnsAllMessages.withQueryPart(draft.id(), part));
      }
    }
    if (draft.sinks() == null) {
      return;
    }
    if (problems.declared("sinks") && draft.sinks().size() != 1) {
      problems.atKey("sinks", ColumnsAllMessages.notRouted(draft.id()));
      return;
    }
    SinkSpec sink = draft.sinks().isEmpty() ? null : draft.sinks().get(0);
    if (!(sink instanceof DeltaSinkSpec delta) || delta.route().isEmpty()) {
      problems.atValue(at, ColumnsAllMessages.notRouted(draft.id()));
    }
  }
}
