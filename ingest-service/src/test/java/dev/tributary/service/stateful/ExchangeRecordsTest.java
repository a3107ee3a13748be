package dev.tributary.service.stateful;

import static dev.tributary.service.stateful.StatefulOperatorsTest.event;
import static dev.tributary.service.stateful.StatefulOperatorsTest.spec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.pipeline.PipelineFactory;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExchangeRecordsTest {
  private static final String SEED =
      """
      watermark: { column: event_ts, delay: 10 minutes }
      deduplicate: { keys: [event_id, event_ts] }
      aggregate:
        window: { column: event_ts, size: 5 minutes }
        group-by: [event_type]
        measures: { events: count(), amount: sum(amount) }
      """;

  private static ExchangeRecords records(String query, int partitions) {
    return new ExchangeRecords(
        PipelineFactory.compile(spec(query)).stateful().orElseThrow(), partitions);
  }

  @Test
  void repartitionColumnsKeepEveryStatefulKeyInOnePartition() {
    assertThat(ExchangeRecords.repartitionBy(List.of("id", "ts"), null))
        .containsExactly("id", "ts");
    assertThat(ExchangeRecords.repartitionBy(null, List.of("type"))).containsExactly("type");
    assertThat(ExchangeRecords.repartitionBy(List.of("user", "ts"), List.of("type", "user")))
        .containsExactly("user");
    // nothing shared: the group-by columns (exact for duplicates that agree on them)
    assertThat(ExchangeRecords.repartitionBy(List.of("id", "ts"), List.of("type")))
        .containsExactly("type");
    assertThat(ExchangeRecords.repartitionBy(null, List.of())).isEmpty();
    // the seed query: event_type is column 2 of the input schema
    assertThat(records(SEED, 4).keyColumns()).containsExactly(2);
  }

  @Test
  void aRowDecodesToItsValuesAndRowsOfOneKeyShareAPartition() {
    ExchangeRecords records = records(SEED, 12);
    Object[] a = event("a", "u1", "click", 3, "1.50", 2);
    Object[] b = event("b", "u2", "click", 9, null, null);
    ExchangeRecords.Outgoing outA = records.row(a);
    ExchangeRecords.Outgoing outB = records.row(b);
    assertThat(outA.partition()).isEqualTo(outB.partition()).isBetween(0, 11);
    assertThat(((ExchangeRecords.Row) records.decode(outA.value())).values()).containsExactly(a);
    assertThat(((ExchangeRecords.Row) records.decode(outB.value())).values()).containsExactly(b);
    Set<Integer> partitions = new HashSet<>();
    for (String type :
        List.of("click", "view", "buy", "cart", "search", "share", "like", "scroll")) {
      partitions.add(records.row(event("x", "u", type, 1, "1.00", 1)).partition());
    }
    assertThat(partitions).as("types spread over partitions").hasSizeGreaterThan(1);
  }

  @Test
  void everyValueTypeOfARowSurvivesTheExchange() {
    Object[] values = {
      null,
      "s\u00e9",
      7,
      8L,
      -0.5,
      true,
      Instant.parse("2026-01-02T03:04:05.123456Z"),
      LocalDate.of(2026, 2, 3),
      new byte[] {1, 2, 3},
      new BigDecimal("-12.340"),
      new Object[] {"nested", new Object[] {1L, null}}
    };
    Codec.Writer w = new Codec.Writer();
    for (Object v : values) {
      w.value(v);
    }
    Object[] back = Codec.values(w.toBytes(), 0, values.length);
    assertThat(back).usingRecursiveFieldByFieldElementComparator().containsExactly(values);
    assertThat((byte[]) back[8]).containsExactly(1, 2, 3);
    assertThat((Object[]) back[10]).hasSize(2);
    assertThat(((Object[]) ((Object[]) back[10])[1])).containsExactly(1L, null);
  }

  @Test
  void markersGoToEveryPartitionAndAForeignRecordIsRefused() {
    ExchangeRecords records = records(SEED, 3);
    List<ExchangeRecords.Outgoing> markers = records.markers(1_234_567L);
    assertThat(markers).extracting(ExchangeRecords.Outgoing::partition).containsExactly(0, 1, 2);
    assertThat(markers).allSatisfy(m -> assertThat(m.key()).isNull());
    assertThat(records.decode(markers.get(1).value()))
        .isEqualTo(new ExchangeRecords.Marker(1_234_567L));
    assertThatThrownBy(() -> records.decode(new byte[] {7, 1}))
        .hasMessageContaining("unknown kind 7");
    assertThatThrownBy(() -> records.decode(new byte[] {ExchangeRecords.MARKER, 1}))
        .hasMessageContaining("9");
  }

  @Test
  void withoutKeyColumnsEveryRowIsPartitionZero() {
    ExchangeRecords records =
        records(
            """
        watermark: { column: event_ts, delay: 10 minutes }
        aggregate:
          window: { column: event_ts, size: 5 minutes }
          measures: { events: count() }
        """,
            5);
    assertThat(records.keyColumns()).isEmpty();
    assertThat(records.row(event("a", "u", "click", 1, "1.00", 1)).partition()).isZero();
    assertThat(records.row(event("b", "v", "view", 2, "2.00", 1)).partition()).isZero();
  }

  @Test
  void aProgressRecordDecodesToWhatTheBatchReadAndSaw() {
    ExchangeRecords records = records(SEED, 3);
    ExchangeRecords.Progress progress =
        new ExchangeRecords.Progress(
            List.of(
                new ExchangeRecords.SourcePosition(
                    "orders", 3, 120, true, 150, java.util.OptionalLong.of(1_700_000_000_000_000L)),
                new ExchangeRecords.SourcePosition(
                    "orders", 2, 80, true, 150, java.util.OptionalLong.of(1_600_000_000_000_000L)),
                new ExchangeRecords.SourcePosition("orders", 1, -1, false, 7),
                new ExchangeRecords.SourcePosition("refunds", 0, 9, false, 9)));
    List<ExchangeRecords.Outgoing> out = records.progress(progress);
    assertThat(out).extracting(ExchangeRecords.Outgoing::partition).containsExactly(0, 1, 2);
    assertThat(out).allSatisfy(o -> assertThat(o.key()).isNull());
    assertThat(out.get(1).value()[0]).isEqualTo(ExchangeRecords.SOURCE_PROGRESS);
    assertThat(records.decode(out.get(1).value())).isEqualTo(progress);
    assertThat(progress.eventTimeMicros()).hasValue(1_700_000_000_000_000L);
    ExchangeRecords.Progress empty = new ExchangeRecords.Progress(List.of());
    assertThat(records.decode(records.progress(empty).get(0).value())).isEqualTo(empty);
  }

  @Test
  void aTruncatedProgressRecordIsRefused() {
    ExchangeRecords records = records(SEED, 1);
    byte[] value =
        records
            .progress(
                new ExchangeRecords.Progress(
                    List.of(
                        new ExchangeRecords.SourcePosition(
                            "orders", 1, 4, true, 4, java.util.OptionalLong.of(5)))))
            .get(0)
            .value();
    assertThatThrownBy(() -> records.decode(java.util.Arrays.copyOf(value, value.length - 3)))
        .hasMessageContaining("malformed exchange progress record");
    byte[] longer = java.util.Arrays.copyOf(value, value.length + 1);
    assertThatThrownBy(() -> records.decode(longer)).hasMessageContaining("1 bytes after");
  }

  /**
   * A progress record of an earlier version (kind 3, one maximum event time for the batch, bytes as
   * it wrote them) still decodes with its meaning then: every partition the batch read records of
   * has that maximum, the others none.
   */
  @Test
  void anEarlierVersionsProgressRecordGivesTheBatchMaximumToThePartitionsItReadRecordsOf() {
    ExchangeRecords records = records(SEED, 2);
    byte[] name = "orders".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(2 + 8 + 4 + 4 + name.length + 4 + 3 * 25);
    b.put(ExchangeRecords.PROGRESS).put((byte) 1).putLong(1_700_000_000_000_000L);
    b.putInt(1).putInt(name.length).put(name);
    b.putInt(3);
    b.putInt(0).putInt(0).putLong(120).put((byte) 1).putLong(150); // read, with records
    b.putInt(0).putInt(1).putLong(9).put((byte) 0).putLong(9); // read, empty range
    b.putInt(0).putInt(2).putLong(-1).put((byte) 0).putLong(7); // another instance's
    assertThat(records.decode(b.array()))
        .isEqualTo(
            new ExchangeRecords.Progress(
                List.of(
                    new ExchangeRecords.SourcePosition(
                        "orders",
                        0,
                        120,
                        true,
                        150,
                        java.util.OptionalLong.of(1_700_000_000_000_000L)),
                    new ExchangeRecords.SourcePosition("orders", 1, 9, false, 9),
                    new ExchangeRecords.SourcePosition("orders", 2, -1, false, 7))));
    byte[] noTime = {ExchangeRecords.PROGRESS, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assertThat(records.decode(noTime)).isEqualTo(new ExchangeRecords.Progress(List.of()));
  }
}
