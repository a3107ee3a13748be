package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * A stateless processor that decodes ahead writes exactly what it writes record by record: the same
 * rows in the same order, each quarantined record with its own error, a decoder failure thrown at
 * its own record after every earlier one was written.
 */
class DecodeAheadProcessorTest {
  private static final int RECORDS = 3_000;

  /** Every 97th record is not JSON; every 89th has a NUL in its partition column. */
  private static boolean unparseable(long offset) {
    return offset % 97 == 13;
  }

  private static boolean unwritable(long offset) {
    return offset % 89 == 5;
  }

  /** Filtered out by the pipeline's filter ({@code id % 10 <> 7}). */
  private static boolean filtered(long offset) {
    return offset % 10 == 7;
  }

  private static String json(long offset) {
    if (unparseable(offset)) {
      return "{\"id\": " + offset + ", not json";
    }
    String region = unwritable(offset) ? "e\\u0000u" : (offset % 3 == 0 ? "eu" : "us");
    return "{\"id\":" + offset + ",\"region\":\"" + region + "\"}";
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset) {
    byte[] value = json(offset).getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>(
        "t",
        (int) (offset % 2),
        offset,
        1_000 + offset,
        TimestampType.CREATE_TIME,
        1,
        value.length,
        "k".getBytes(StandardCharsets.UTF_8),
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  /** Decodes with the JSON parser, noting the threads it ran on; throws at {@code failAt}. */
  private static final class WatchedDecoder implements RecordDecoder {
    final RecordDecoder json;
    final long failAt;
    final Set<String> threads = ConcurrentHashMap.newKeySet();

    WatchedDecoder(long failAt) {
      LinkedHashMap<String, String> columns = new LinkedHashMap<>();
      columns.put("id", "long");
      columns.put("region", "string");
      this.json = JsonRecordParser.forColumns(columns, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
      this.failAt = failAt;
    }

    @Override
    public StructType schema() {
      return json.schema();
    }

    @Override
    public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
      threads.add(Thread.currentThread().getName());
      if (offset == failAt) {
        throw new IllegalStateException("schema registry unreachable at offset " + offset);
      }
      return json.decode(topic, partition, offset, key, value);
    }
  }

  private static StatelessProcessor processor(RecordDecoder decoder) {
    LinkedHashMap<String, String> derive = new LinkedHashMap<>();
    derive.put("at", "CAST(id AS timestamp)");
    var transforms =
        Transforms.compile(
            StatelessProcessor.transformInput(decoder.schema()),
            List.of(new Step.Filter("id % 10 <> 7"), new Step.Derive(derive)));
    return new StatelessProcessor("p", decoder, transforms, List.of("region"));
  }

  private static RecordProcessor.BatchContext batch(long id) {
    return new RecordProcessor.BatchContext(
        id, Instant.parse("2026-01-01T00:00:00Z"), OptionalLong.empty());
  }

  /** What a batch wrote: the sink's rows and the quarantine's, in the order written. */
  private record Written(List<Object[]> rows, List<Object[]> quarantined) {
    Written() {
      this(new ArrayList<>(), new ArrayList<>());
    }

    BatchOutputs open() {
      return new BatchOutputs(
          new InMemoryBatchWriter(rows), new InMemoryBatchWriter(quarantined), null);
    }
  }

  private static Written run(RecordProcessor processor, long from, long to) throws Exception {
    Written written = new Written();
    BatchOutputs outputs = written.open();
    processor.beginBatch(batch(1));
    for (long offset = from; offset < to; offset++) {
      processor.process(record(offset), outputs);
    }
    processor.endBatch(outputs);
    assertThat(outputs.inputRows()).isEqualTo(to - from);
    return written;
  }

  private static List<String> deep(List<Object[]> rows) {
    return rows.stream().map(Arrays::deepToString).toList();
  }

  @Test
  void writesTheRowsAndQuarantineOfRecordByRecordInTheSameOrderAcrossChunks() throws Exception {
    WatchedDecoder plainDecoder = new WatchedDecoder(-1);
    Written plain = run(processor(plainDecoder), 0, RECORDS);
    WatchedDecoder aheadDecoder = new WatchedDecoder(-1);
    Written ahead;
    // 7 records a chunk: hundreds of chunk boundaries, bad records at and next to them
    try (var p = new DecodeAheadProcessor(processor(aheadDecoder), "p-decode", 7)) {
      ahead = run(p, 0, RECORDS);
    }

    assertThat(deep(ahead.rows())).containsExactlyElementsOf(deep(plain.rows()));
    assertThat(deep(ahead.quarantined())).containsExactlyElementsOf(deep(plain.quarantined()));
    List<Long> expectedIds = new ArrayList<>();
    List<Long> expectedBad = new ArrayList<>();
    for (long offset = 0; offset < RECORDS; offset++) {
      if (unparseable(offset) || (unwritable(offset) && !filtered(offset))) {
        expectedBad.add(offset);
      } else if (!filtered(offset)) {
        expectedIds.add(offset);
      }
    }
    assertThat(ahead.rows()).extracting(r -> (Long) r[0]).containsExactlyElementsOf(expectedIds);
    assertThat(ahead.quarantined())
        .extracting(q -> (Long) q[2])
        .containsExactlyElementsOf(expectedBad);
    // each quarantined record carries its own value and the error its own value caused
    for (Object[] q : ahead.quarantined()) {
      long offset = (Long) q[2];
      assertThat(new String((byte[]) q[5], StandardCharsets.UTF_8)).isEqualTo(json(offset));
      assertThat((String) q[6])
          .as("error of offset %d", offset)
          .startsWith(
              unparseable(offset)
                  ? "malformed JSON"
                  : "partition column 'region': the value contains a NUL");
    }
    assertThat(aheadDecoder.threads).containsExactly("p-decode");
    assertThat(plainDecoder.threads).containsExactly(Thread.currentThread().getName());
  }

  @Test
  void theFactoryOfThePlainPathDecodesOnAWorkerWithChunksOfTheRealSize() throws Exception {
    WatchedDecoder plainDecoder = new WatchedDecoder(-1);
    Written plain = run(processor(plainDecoder), 0, RECORDS);
    WatchedDecoder aheadDecoder = new WatchedDecoder(-1);
    RecordProcessor p = processor(aheadDecoder).decodingAhead();
    Written ahead;
    try (p) {
      ahead = run(p, 0, RECORDS);
    }
    assertThat(deep(ahead.rows())).containsExactlyElementsOf(deep(plain.rows()));
    assertThat(deep(ahead.quarantined())).containsExactlyElementsOf(deep(plain.quarantined()));
    assertThat(aheadDecoder.threads).containsExactly("p-decode");
  }

  @Test
  void aDecoderFailureIsThrownAtItsRecordAfterEveryEarlierRecordWasWritten() throws Exception {
    long failAt = 500; // inside a chunk of 7 (71 * 7 = 497)
    Written written = new Written();
    BatchOutputs outputs = written.open();
    try (var p = new DecodeAheadProcessor(processor(new WatchedDecoder(failAt)), "p-decode", 7)) {
      p.beginBatch(batch(1));
      assertThatThrownBy(
              () -> {
                for (long offset = 0; offset < 1_000; offset++) {
                  p.process(record(offset), outputs);
                }
                p.endBatch(outputs);
              })
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("schema registry unreachable at offset 500");
    }
    Written plain = run(processor(new WatchedDecoder(-1)), 0, failAt);
    assertThat(deep(written.rows())).containsExactlyElementsOf(deep(plain.rows()));
    assertThat(deep(written.quarantined())).containsExactlyElementsOf(deep(plain.quarantined()));
    assertThat(outputs.inputRows()).isEqualTo(failAt);
  }

  @Test
  void aBatchAbandonedMidwayLeavesNothingInTheNext() throws Exception {
    try (var p = new DecodeAheadProcessor(processor(new WatchedDecoder(-1)), "p-decode", 7)) {
      Written abandoned = new Written();
      BatchOutputs first = abandoned.open();
      p.beginBatch(batch(1));
      for (long offset = 0; offset < 100; offset++) { // chunks applied, in flight and pending
        p.process(record(offset), first);
      }
      Written next = run(p, 1_000, 1_050);
      Written plain = run(processor(new WatchedDecoder(-1)), 1_000, 1_050);
      assertThat(deep(next.rows())).containsExactlyElementsOf(deep(plain.rows()));
      assertThat(deep(next.quarantined())).containsExactlyElementsOf(deep(plain.quarantined()));
      assertThat(abandoned.rows()).extracting(r -> (Long) r[0]).allMatch(id -> id < 100);
    }
  }

  @Test
  void typedRowsKeepTheirOwnPath() {
    StructType schema = new StructType(List.of(StructField.nullable("id", PrimitiveType.LONG)));
    StatelessProcessor rows =
        StatelessProcessor.forRows(
            "p", "/tables/src", schema, Transforms.compile(schema, List.of()), List.of(), null);
    assertThat(rows.decodingAhead()).isSameAs(rows);
  }

  @Test
  void aRecordBeforeABatchBeganIsRefusedNamingIt() {
    try (var p = new DecodeAheadProcessor(processor(new WatchedDecoder(-1)), "p-decode", 7)) {
      assertThatThrownBy(() -> p.process(record(4), new Written().open()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("Kafka record t/0@4 reached the processor (p-decode) before a batch began");
    }
  }
}
