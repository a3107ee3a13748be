package dev.tributary.service.engine;

import dev.tributary.service.expr.CompiledPredicate;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.service.parse.WriterRow;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The stateless processor of a {@code columns: all} pipeline (docs/DESIGN.md, "Every field of the
 * writer schema"): rows of many schemas, one per writer schema, each carrying its own columns to a
 * routed table that takes them.
 *
 * <p>A row is split in two. The columns every record has ({@code _op, _source_ts} with the Debezium
 * envelope, the Kafka columns, derived columns) go through the pipeline's compiled steps as in any
 * stateless pipeline ({@link StatelessProcessor#afterParse}: transforms, expectations, projection),
 * which {@code validate} compiled without I/O. The writer's fields ride behind them in one {@link
 * WriterRow} slot: the sink row is the fixed output row plus that slot. The routed sink evaluates
 * the route over the fixed part and turns the row into its table's row ({@code
 * sink.route.WriterSchemaTable}); a row its table cannot take (a field whose type changed, a null
 * key) is refused, and its record quarantined with the reason.
 *
 * <p>With {@code write: upsert}: a row matching {@code delete-when} (over the fixed columns, e.g.
 * {@code _op = 'd'}) deletes its key, and a tombstone's record key, decoded alone, deletes the key
 * its fields give.
 */
public final class WriterSchemaProcessor implements RecordProcessor {
  private final RecordDecoder decoder;
  private final StatelessProcessor fixed;
  private final CompiledPredicate deleteWhen;
  private final boolean merges;

  /** The {@code sequence-by} column's position in the fixed output row, or -1. */
  private final int sequence;

  /**
   * @param decoder the decoder of every writer field (its rows end with a {@link WriterRow})
   * @param fixed the compiled steps over the fixed columns, built on {@code decoder}
   * @param deleteWhen the {@code delete-when} predicate over the fixed output row, or null
   * @param changes {@link Changes#MERGED} for {@code write: upsert} (tombstones delete), else
   *     {@link Changes#APPENDED}
   * @param sequenceColumn the upsert's {@code sequence-by} column (a fixed column), or null
   */
  public WriterSchemaProcessor(
      RecordDecoder decoder,
      StatelessProcessor fixed,
      CompiledPredicate deleteWhen,
      Changes changes,
      String sequenceColumn) {
    this.decoder = Objects.requireNonNull(decoder, "decoder");
    this.fixed = Objects.requireNonNull(fixed, "fixed");
    this.deleteWhen = deleteWhen;
    this.merges = changes == Changes.MERGED;
    this.sequence = sequenceColumn == null ? -1 : fixed.outputSchema().indexOf(sequenceColumn);
  }

  /** Whether the sink appends rows or merges them by key. */
  public enum Changes {
    APPENDED,
    MERGED
  }

  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return fixed.planBatch(batchId);
  }

  @Override
  public void beginBatch(BatchContext batch) {
    fixed.beginBatch(batch);
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    outputs.countInput();
    if (merges && record.value() == null) {
      tombstone(record, outputs);
      return;
    }
    ParseResult result =
        decoder.decode(
            record.topic(), record.partition(), record.offset(), record.key(), record.value());
    if (result instanceof ParseResult.Failure failure) {
      fixed.quarantine(record, failure.error(), outputs);
      return;
    }
    if (result instanceof ParseResult.Skipped) {
      outputs.countFiltered(); // a record without a row (an envelope's control event)
      return;
    }
    Object[] parsed = ((ParseResult.Success) result).row();
    Object[] row = fixed.afterParse(record, parsed, outputs);
    if (row == null) {
      return;
    }
    Object[] out = withWriterRow(row, WriterRow.of(parsed));
    boolean deletes = deleteWhen != null && deleteWhen.test(row);
    if (merges && !deletes && sequence >= 0 && row[sequence] == null) {
      fixed.quarantine(
          record,
          "sequence-by column '"
              + fixed.outputSchema().fields().get(sequence).name()
              + "' is null; the change cannot be ordered against the other changes of its key",
          outputs);
      return;
    }
    String refused = outputs.refusal(out);
    if (refused != null) {
      fixed.quarantine(record, refused, outputs);
    } else if (deletes) {
      outputs.delete(out);
    } else {
      outputs.output(out);
    }
  }

  /**
   * A tombstone of an upsert: its key, decoded alone, deletes the key its fields give; the fixed
   * columns are the Kafka columns (the transforms are skipped: a filter on the value's columns
   * would drop it).
   */
  private void tombstone(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws IOException {
    ParseResult result =
        decoder.decodeKey(
            record.topic(), record.partition(), record.offset(), record.key(), List.of());
    if (!(result instanceof ParseResult.Success success)) {
      fixed.quarantine(
          record,
          result instanceof ParseResult.Failure f ? f.error() : "record key could not be decoded",
          outputs);
      return;
    }
    StructType schema = fixed.outputSchema();
    Object[] row = new Object[schema.size()];
    set(row, schema, "_kafka_topic", record.topic());
    set(row, schema, "_kafka_partition", record.partition());
    set(row, schema, "_kafka_offset", record.offset());
    set(row, schema, "_kafka_timestamp", Instant.ofEpochMilli(record.timestamp()));
    Object[] out = withWriterRow(row, WriterRow.of(success.row()));
    String refused = outputs.refusal(out);
    if (refused != null) {
      fixed.quarantine(record, refused, outputs);
      return;
    }
    outputs.delete(out);
  }

  private static void set(Object[] row, StructType schema, String column, Object value) {
    int i = schema.indexOf(column);
    if (i >= 0) {
      row[i] = value;
    }
  }

  private static Object[] withWriterRow(Object[] row, WriterRow writer) {
    Object[] out = Arrays.copyOf(row, row.length + 1);
    out[row.length] = writer;
    return out;
  }

  @Override
  public void endBatch(BatchOutputs outputs) {}

  @Override
  public void close() {
    fixed.close();
  }
}
