package dev.tributary.service.cli;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.config.JoinSide;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.TimeBounds;
import dev.tributary.service.demo.ClickEvents;
import dev.tributary.service.demo.EmbeddedBroker;
import dev.tributary.service.engine.BatchProgress;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code tributary demo attribution}: the stream-stream join of {@code
 * pipelines/clicks-purchases.yaml} on the demo's broker. Produces clicks and purchases ({@link
 * ClickEvents}: attributed purchases, guests' purchases, clicks without a purchase, a few late and
 * malformed records in both topics), runs the left outer join available-now into a local Delta
 * table, reads the table back and compares it with what the generator's streams give; the demo
 * fails (exit 1) when they differ. Prints the rows (attributed purchases, clicks without one), the
 * clicks still waiting in state, the quarantine with partition@offset, and the late records.
 */
final class AttributionDemo {
  static final String CLICKS = "demo-clicks";
  static final String PURCHASES = "demo-purchases";
  private final PrintStream out;

  AttributionDemo(PrintStream out) {
    this.out = out;
  }

  int run(int clicks, Path dir) throws Exception {
    DemoCommand.prepare(dir);
    out.println("Tributary attribution demo (a stream-stream join): output in " + dir);
    out.println("1. Starting an embedded Kafka broker (KRaft)...");
    try (EmbeddedBroker broker = EmbeddedBroker.start(3, CLICKS, PURCHASES)) {
      ClickEvents.Streams streams =
          ClickEvents.generate(clicks, Instant.parse("2026-11-01T08:00:00Z"), 25);
      DemoCommand.produce(broker.bootstrapServers(), CLICKS, streams.clickValues());
      DemoCommand.produce(broker.bootstrapServers(), PURCHASES, streams.purchaseValues());
      out.printf(
          "2. Produced to %s and %s (3 partitions each): %s%n",
          CLICKS, PURCHASES, streams.describe());

      String yaml = DemoCommand.resource("demo/attribution-demo.yaml");
      Path file = dir.resolve("attribution-demo.yaml");
      Files.writeString(file, yaml);
      PipelineSpec spec =
          PipelineParser.parse(
              yaml,
              file.toString(),
              Map.of("KAFKA_BOOTSTRAP", broker.bootstrapServers(), "DEMO_DIR", dir.toString()));
      out.printf(
          "3. Running pipeline %s (available-now): clicks LEFT OUTER JOIN purchases ON user_id AND"
              + " p.event_ts BETWEEN c.event_ts AND c.event_ts + INTERVAL 30 MINUTES, watermarks"
              + " 10 minutes:%n",
          spec.id());
      List<BatchProgress> batches = MedallionDemo.runAvailableNow(PipelineFactory.compile(spec));
      out.println("   " + MedallionDemo.describe(batches));
      return summarize(spec, streams, batches);
    }
  }

  private int summarize(PipelineSpec spec, ClickEvents.Streams streams, List<BatchProgress> batches)
      throws IOException {
    List<Map<String, Object>> rows = CdcDemo.rows(spec.sink().path());
    long attributed = rows.stream().filter(r -> r.get("p_order_id") != null).count();
    long purchases =
        rows.stream().map(r -> r.get("p_order_id")).filter(o -> o != null).distinct().count();
    long unmatched = rows.size() - attributed;
    long clicksWritten = rows.stream().map(r -> r.get("click_id")).distinct().count();
    long waiting = streams.joinedClicks().size() - clicksWritten;
    Instant writtenUpTo = writtenUpTo(spec);
    boolean equal = streams.expectedRows(writtenUpTo).equals(show(rows));
    out.printf(
        "4. Table %s: %,d rows = %,d attributed purchases (%,d distinct purchases; one per click"
            + " of the user in the 30 minutes before it) + %,d clicks without a purchase%n",
        spec.sink().path(), rows.size(), attributed, purchases, unmatched);
    out.printf(
        "   %,d clicks wait in state: a purchase may still come until the watermark is 30 minutes"
            + " past them (clicks up to %s are written)%n",
        waiting, writtenUpTo);
    out.printf("   equal to the join of the produced streams: %s%n", equal ? "yes" : "NO");

    List<Map<String, Object>> quarantined = CdcDemo.rows(spec.quarantine().path());
    quarantined.sort(
        Comparator.comparing((Map<String, Object> q) -> (String) q.get("topic"))
            .thenComparing(q -> (Integer) q.get("partition"))
            .thenComparing(q -> (Long) q.get("offset")));
    out.printf(
        "5. Quarantined: %,d records (%s), for example:%n",
        quarantined.size(), spec.quarantine().path());
    for (Map<String, Object> q : quarantined.subList(0, Math.min(4, quarantined.size()))) {
      out.printf(
          "   %-7s %s %s@%s: %s%n      value: %s%n",
          q.get("input"),
          q.get("topic"),
          q.get("partition"),
          q.get("offset"),
          q.get("error"),
          new String((byte[]) q.get("value"), StandardCharsets.UTF_8));
    }
    long lateClicks = DemoTables.rows(spec.lateEvents().orElseThrow().path());
    long latePurchases =
        batches.stream().mapToLong(b -> b.state().getOrDefault("join.right.lateRows", 0L)).sum();
    out.printf(
        "6. Late (behind the watermark when read, dropped before the join as Spark does): %,d"
            + " clicks in %s, %,d purchases counted (join.right.lateRows)%n",
        lateClicks, spec.lateEvents().orElseThrow().path(), latePurchases);
    if (!equal) {
      out.println(
          "\nThe table differs from the join of the produced streams: this is a bug,"
              + " please report it.");
      return 1;
    }
    out.println(
        "\nRun the pipeline again and it continues from its checkpoint, the waiting clicks with it"
            + " (state/join-0/). Read the table with any Delta reader, e.g. DuckDB: SELECT * FROM"
            + " delta_scan('"
            + spec.sink().path()
            + "');");
    return 0;
  }

  /**
   * The newest click time whose row without a purchase has been written: the left side's state
   * watermark after the last batch, from the W_evict its offsets entry recorded.
   */
  static Instant writtenUpTo(PipelineSpec spec) throws IOException {
    StreamJoinSpec join = spec.streamJoin().orElseThrow();
    try (ObjectStore store = ObjectStores.open(spec.checkpoint(), null)) {
      OffsetsEntry last =
          Checkpoint.open(store, spec.id(), spec.checkpointIdentity())
              .latestOffsets()
              .orElseThrow();
      long evict = last.watermarkMicros().orElse(0);
      long micros =
          TimeBounds.of(join, spec.watermark())
              .stateWatermarkMicros(JoinSide.LEFT, evict)
              .orElse(Long.MIN_VALUE);
      return Instant.EPOCH.plusNanos(micros * 1000);
    }
  }

  /** The table's rows as {@link ClickEvents.Streams#expectedRows} shows them. */
  static List<String> show(List<Map<String, Object>> rows) {
    List<String> shown = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      Object order = r.get("p_order_id");
      shown.add(r.get("click_id") + " " + (order == null ? "-" : order));
    }
    shown.sort(Comparator.naturalOrder());
    return shown;
  }
}
