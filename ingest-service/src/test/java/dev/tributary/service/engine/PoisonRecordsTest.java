package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.expr.Step;
import dev.tributary.service.expr.Transforms;
import dev.tributary.service.parse.JsonRecordParser;
import dev.tributary.service.source.DataLossException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The stateless processor sets aside a record the sink could not write, instead of failing the
 * batch.
 */
class PoisonRecordsTest {

  private final InMemoryBatchWriter sink = new InMemoryBatchWriter();
  private final InMemoryBatchWriter quarantine = new InMemoryBatchWriter();
  private final BatchOutputs outputs = new BatchOutputs(sink, quarantine, null);

  private static StatelessProcessor processor(List<String> partitionBy) {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "long");
    columns.put("region", "string");
    columns.put("note", "string");
    JsonRecordParser parser =
        JsonRecordParser.forColumns(columns, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
    LinkedHashMap<String, String> derive = new LinkedHashMap<>();
    derive.put("at", "CAST(id AS timestamp)");
    var transforms =
        Transforms.compile(
            StatelessProcessor.transformInput(parser.schema()), List.of(new Step.Derive(derive)));
    StatelessProcessor p = new StatelessProcessor("p", parser, transforms, partitionBy);
    p.beginBatch(
        new RecordProcessor.BatchContext(
            3, Instant.parse("2026-01-01T00:00:00Z"), OptionalLong.empty()));
    return p;
  }

  private static ConsumerRecord<byte[], byte[]> record(long offset, long timestamp, String json) {
    return new ConsumerRecord<>(
        "t",
        0,
        offset,
        timestamp,
        TimestampType.CREATE_TIME,
        0,
        json.length(),
        "k".getBytes(StandardCharsets.UTF_8),
        json.getBytes(StandardCharsets.UTF_8),
        new RecordHeaders(),
        Optional.empty());
  }

  @Test
  void aRowTheSinkCannotWriteIsQuarantinedWithTheColumnAndTheOthersGoOn() throws Exception {
    StatelessProcessor p = processor(List.of("region"));
    p.process(record(0, 1000, "{\"id\":1,\"region\":\"eu\"}"), outputs);
    p.process(record(1, 1000, "{\"id\":2,\"region\":\"E\\u0000U\"}"), outputs);
    p.process(record(2, 1000, "{\"id\":3,\"region\":\"" + "x".repeat(300) + "\"}"), outputs);
    p.process(record(3, 1000, "{\"id\":4,\"note\":\"\\ud800\"}"), outputs);
    p.process(record(4, 1000, "{\"id\":300000000000}"), outputs);
    p.process(record(5, 253402300800000L, "{\"id\":6}"), outputs);
    p.process(record(6, 1000, "{\"id\":7,\"region\":\"us\"}"), outputs);

    assertThat(sink.rows).extracting(r -> r[0]).containsExactly(1L, 7L);
    assertThat(quarantine.rows).extracting(q -> q[2]).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(quarantine.rows)
        .extracting(q -> (String) q[6])
        .satisfiesExactly(
            e -> assertThat(e).startsWith("partition column 'region': the value contains a NUL"),
            e ->
                assertThat(e)
                    .startsWith(
                        "partition column 'region': the value makes a directory name of 307 bytes"),
            e ->
                assertThat(e)
                    .startsWith("column 'note': the string has an unpaired UTF-16 surrogate"),
            e -> assertThat(e).startsWith("column 'at': timestamp +11476-"),
            e ->
                assertThat(e)
                    .startsWith("column '_kafka_timestamp': timestamp +10000-01-01T00:00:00Z"));
    Object[] last = quarantine.rows.get(4);
    assertThat(last[3]).as("an unwritable Kafka timestamp is stored as null").isNull();
    assertThat(last[4]).isEqualTo("k".getBytes(StandardCharsets.UTF_8));
    assertThat(last[8]).isEqualTo(3L);
  }

  @Test
  void theStatelessStepsOfAStatefulPipelineLeaveTheChecksToTheStatefulOperators()
      throws IOException {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("region", "string");
    JsonRecordParser parser =
        JsonRecordParser.forColumns(columns, JsonRecordParser.DEFAULT_MAX_RECORD_BYTES);
    StatelessProcessor p =
        new StatelessProcessor(
            "p",
            parser,
            Transforms.compile(StatelessProcessor.transformInput(parser.schema()), List.of()));
    assertThat(p.toRow(record(0, 1000, "{\"region\":\"\\ud800\"}"), outputs)).isNotNull();
  }

  @Test
  void aBatchFailureNamesThePipelineTheBatchAndItsRangesAndKeepsItsCause() {
    Map<SourcePartition, OffsetRange> ranges = new LinkedHashMap<>();
    ranges.put(new SourcePartition("orders", 1), new OffsetRange(40, 90));
    ranges.put(new SourcePartition("orders", 0), new OffsetRange(100, 200));
    IOException cause = new IOException("S3 returned 503 Slow Down");
    BatchFailedException e = new BatchFailedException("orders-hourly", 7, ranges, cause);
    assertThat(e)
        .hasMessage(
            "Pipeline orders-hourly: batch 7 (orders/0 offsets [100, 200), orders/1 offsets [40, 90))"
                + " failed; it is replayed with the same offsets at the next start (a table that already committed it skips it).")
        .hasCause(cause);
    assertThat(e.pipelineId()).isEqualTo("orders-hourly");
    assertThat(e.batchId()).isEqualTo(7);
    // a permanent cause stays recognisable through the wrapper (serve's Failures walks the causes)
    BatchFailedException loss =
        new BatchFailedException(
            "p", 1, ranges, new DataLossException("p", new TopicPartition("orders", 0), 5, 10));
    assertThat(loss.getCause()).isInstanceOf(DataLossException.class);
  }
}
