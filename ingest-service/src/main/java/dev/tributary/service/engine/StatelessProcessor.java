package dev.tributary.service.engine;

import dev.tributary.service.expr.CompiledTransforms;
import dev.tributary.service.join.StreamJoins;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.table.data.RowChecks;
import dev.tributary.table.stream.SourceRow;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Parse, append the Kafka metadata columns, transform, and project to the sink's column order
 * (schema columns, derived columns, then {@code _kafka_topic, _kafka_partition, _kafka_offset,
 * _kafka_timestamp}), then join with the dimension tables, if any ({@link StreamJoins}: their
 * columns come last; a batch records the dimension versions it joins with, see {@link #planBatch}).
 * Records that fail to parse go to the quarantine table with the error. Filters and derived columns
 * can use the Kafka metadata columns too.
 *
 * <p>A processor {@link #forRows for a source of typed rows} (a Delta table) has no parser and no
 * Kafka columns: the source's rows are the transforms' input as they are, and a row that breaks an
 * expression or the sink's checks is quarantined with its provenance ({@link
 * QuarantineRows#SOURCE_ROW_SCHEMA}).
 */
public final class StatelessProcessor implements RecordProcessor {
  /** The metadata columns appended to every parsed record. */
  public static final List<StructField> KAFKA_COLUMNS =
      List.of(
          StructField.nullable("_kafka_topic", PrimitiveType.STRING),
          StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
          StructField.nullable("_kafka_offset", PrimitiveType.LONG),
          StructField.nullable("_kafka_timestamp", PrimitiveType.TIMESTAMP));

  private final String pipelineId;

  /** Null for a processor of typed rows. */
  private final RecordDecoder parser;

  /** The typed rows' source table and schema; null for a processor of records. */
  private final String rowSource;

  private final StructType rowSchema;
  private final CompiledTransforms transforms;
  private final int parsedWidth;
  private final int[] projection;

  /**
   * The projection keeps every transformed column in place (no derived column moves the Kafka
   * columns): the transformed row, a fresh array per input, is the output row as it is.
   */
  private final boolean identityProjection;

  private final StructType streamSchema;
  private final StreamJoins joins;
  private final StructType outputSchema;
  private final RowChecks sinkChecks;

  /**
   * The sink table's evolving columns ({@code schema-evolution}), or null: rows go to the sink as
   * they are.
   */
  private final EvolvingLayout layout;

  /** How rows become changes of a sink that merges by key, or null: rows are appended. */
  private final ChangeRules changes;

  private final List<String> partitionColumns;

  /** The data-quality rules each transformed row is checked against. */
  private final Expectations expectations;

  /**
   * The sink table's row rules (constraints, generated and identity columns), or null: rows go to
   * the sink in the output's column order.
   */
  private final TableRowRules tableRules;

  private long batchId;
  private Instant batchStartedAt;

  /**
   * A processor whose rows are the sink's rows, checked with {@link RowChecks} for the sink's
   * {@code partitionColumns} before they are written (a row the table cannot hold is quarantined).
   */
  public StatelessProcessor(
      String pipelineId,
      RecordDecoder parser,
      CompiledTransforms transforms,
      List<String> partitionColumns) {
    this(pipelineId, parser, transforms, partitionColumns, null);
  }

  /**
   * A processor whose rows, joined by {@code joins} (opened for {@link #transformedSchema}), are
   * the sink's rows; it closes {@code joins} when closed.
   */
  public StatelessProcessor(
      String pipelineId,
      RecordDecoder parser,
      CompiledTransforms transforms,
      List<String> partitionColumns,
      StreamJoins joins) {
    this(pipelineId, parser, transforms, partitionColumns, true, joins);
  }

  /**
   * The stateless steps of a stateful pipeline ({@link #toRow}): its rows go on to the stateful
   * operators, which check them themselves.
   */
  public StatelessProcessor(
      String pipelineId, RecordDecoder parser, CompiledTransforms transforms) {
    this(pipelineId, parser, null, null, transforms, List.of(), false, null);
  }

  /**
   * A processor of the typed rows of a table source ({@link RecordProcessor#processRow}), whose
   * rows, joined by {@code joins} (may be null), are the sink's rows.
   *
   * @param sourceTable the source table's location, recorded in quarantine rows
   * @param inputSchema the source's schema; {@code transforms} are compiled against it as it is
   */
  public static StatelessProcessor forRows(
      String pipelineId,
      String sourceTable,
      StructType inputSchema,
      CompiledTransforms transforms,
      List<String> partitionColumns,
      StreamJoins joins) {
    return new StatelessProcessor(
        pipelineId, null, sourceTable, inputSchema, transforms, partitionColumns, true, joins);
  }

  /**
   * The stateless steps of a stateful pipeline with joins: {@link #toRow} then {@link #join} give
   * the rows the stateful operators get, unchecked (they check them themselves); closes {@code
   * joins} when closed.
   */
  public StatelessProcessor(
      String pipelineId, RecordDecoder parser, CompiledTransforms transforms, StreamJoins joins) {
    this(pipelineId, parser, transforms, List.of(), false, joins);
  }

  /**
   * The same stateless steps (parser or source table, transforms) with other output handling: rows
   * for the sink, checked for {@code partitionColumns}, or, when {@code partitionColumns} is null,
   * the unchecked rows of a stateful pipeline's steps; joined by {@code joins} (may be null).
   */
  public StatelessProcessor rebuild(List<String> partitionColumns, StreamJoins joins) {
    return new StatelessProcessor(
        pipelineId,
        parser,
        rowSource,
        rowSchema,
        transforms,
        partitionColumns == null ? List.of() : partitionColumns,
        partitionColumns != null,
        joins,
        null,
        null,
        null,
        expectations);
  }

  /**
   * This processor checking every transformed row against {@code rules} ({@code expectations}),
   * compiled over {@link #transformedSchema()}; kept by {@link #rebuild}, {@link #evolving} and
   * {@link #withChanges}.
   */
  public StatelessProcessor withExpectations(Expectations rules) {
    return new StatelessProcessor(
        pipelineId,
        parser,
        rowSource,
        rowSchema,
        transforms,
        partitionColumns,
        sinkChecks != null,
        joins,
        layout,
        changes,
        tableRules,
        Objects.requireNonNull(rules, "rules"));
  }

  private StatelessProcessor(
      String pipelineId,
      RecordDecoder parser,
      CompiledTransforms transforms,
      List<String> partitionColumns,
      boolean sinkRows,
      StreamJoins joins) {
    this(pipelineId, parser, null, null, transforms, partitionColumns, sinkRows, joins);
  }

  private StatelessProcessor(
      String pipelineId,
      RecordDecoder parser,
      String rowSource,
      StructType rowSchema,
      CompiledTransforms transforms,
      List<String> partitionColumns,
      boolean sinkRows,
      StreamJoins joins) {
    this(
        pipelineId,
        parser,
        rowSource,
        rowSchema,
        transforms,
        partitionColumns,
        sinkRows,
        joins,
        null,
        null,
        null,
        Expectations.NONE);
  }

  /**
   * This processor writing to a sink whose columns evolve: its parser reports what records carry
   * beyond the declared columns ({@link RecordDecoder#withEvolution}), and {@code layout} turns
   * each row into the table's row, adding columns to the batch's commit when new fields appear. For
   * the rows of a stateless pipeline of Kafka records only.
   */
  public StatelessProcessor evolving(EvolvingLayout layout, List<String> partitionColumns) {
    if (parser == null) {
      throw new IllegalStateException(
          "Pipeline " + pipelineId + ": schema evolution applies to decoded records");
    }
    return new StatelessProcessor(
        pipelineId,
        parser.withEvolution(layout.rescues(), layout.reportsNewFields()),
        rowSource,
        rowSchema,
        transforms,
        partitionColumns,
        true,
        joins,
        layout,
        null,
        tableRules,
        expectations);
  }

  /**
   * This processor writing to a sink that merges by key ({@code write: upsert}): each row is
   * checked by {@code rules} (a row without its whole key is quarantined) and goes to the sink as
   * an upsert or, when it matches {@code delete-when}, a delete ({@link BatchOutputs#delete}); a
   * tombstone (a null value) whose key gives the key columns deletes its key. For the rows of a
   * stateless pipeline.
   */
  public StatelessProcessor withChanges(ChangeRules rules) {
    return new StatelessProcessor(
        pipelineId,
        parser,
        rowSource,
        rowSchema,
        transforms,
        partitionColumns,
        sinkChecks != null,
        joins,
        layout,
        Objects.requireNonNull(rules, "rules"),
        tableRules,
        expectations);
  }

  /**
   * This processor writing to a table with row rules ({@link TableRowRules}: CHECK constraints,
   * invariants, generated and identity columns): each row becomes the table's row and is
   * quarantined, not written, when the table refuses it. For the rows of a stateless pipeline that
   * appends.
   */
  public StatelessProcessor withTableRules(TableRowRules rules) {
    return new StatelessProcessor(
        pipelineId,
        parser,
        rowSource,
        rowSchema,
        transforms,
        partitionColumns,
        sinkChecks != null,
        joins,
        layout,
        changes,
        Objects.requireNonNull(rules, "rules"),
        expectations);
  }

  private StatelessProcessor(
      String pipelineId,
      RecordDecoder parser,
      String rowSource,
      StructType rowSchema,
      CompiledTransforms transforms,
      List<String> partitionColumns,
      boolean sinkRows,
      StreamJoins joins,
      EvolvingLayout layout,
      ChangeRules changes,
      TableRowRules tableRules,
      Expectations expectations) {
    this.layout = layout;
    this.tableRules = tableRules;
    this.expectations = expectations;
    this.changes = changes;
    this.partitionColumns = List.copyOf(partitionColumns);
    this.pipelineId = pipelineId;
    this.parser = parser;
    this.rowSource = rowSource;
    this.rowSchema = rowSchema;
    this.transforms = transforms;
    this.parsedWidth = parser != null ? parser.schema().size() : rowSchema.size();
    // transforms see [parsed columns, kafka columns]; derived columns come after those
    StructType transformed = transforms.outputSchema();
    List<StructField> out = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    int kafkaStart = parsedWidth;
    int kafkaEnd = parsedWidth + (parser != null ? KAFKA_COLUMNS.size() : 0);
    for (int i = 0; i < transformed.size(); i++) {
      if (i < kafkaStart || i >= kafkaEnd) {
        order.add(i);
        out.add(transformed.fields().get(i));
      }
    }
    for (int i = kafkaStart; i < kafkaEnd; i++) {
      order.add(i);
      out.add(transformed.fields().get(i));
    }
    this.projection = order.stream().mapToInt(Integer::intValue).toArray();
    boolean identity = projection.length == transformed.size();
    for (int i = 0; identity && i < projection.length; i++) {
      identity = projection[i] == i;
    }
    this.identityProjection = identity;
    this.streamSchema = new StructType(out);
    this.joins = joins;
    this.outputSchema = joins == null ? streamSchema : joins.outputSchema();
    this.sinkChecks = sinkRows ? RowChecks.forTable(outputSchema, partitionColumns) : null;
  }

  /**
   * The schema transforms are compiled against: the parsed columns followed by the Kafka columns.
   */
  public static StructType transformInput(StructType parsed) {
    List<StructField> fields = new ArrayList<>(parsed.fields());
    fields.addAll(KAFKA_COLUMNS);
    return new StructType(fields);
  }

  /**
   * The source table whose typed rows this processor reads ({@link #forRows}); empty when it
   * decodes Kafka records.
   */
  public Optional<String> sourceTable() {
    return Optional.ofNullable(rowSource);
  }

  /** The sink table's schema: the transformed rows' columns, then the joins' columns. */
  public StructType outputSchema() {
    return outputSchema;
  }

  /**
   * The schema of the rows {@link #toRow} returns: the transformed columns, Kafka columns last (no
   * joins).
   */
  public StructType transformedSchema() {
    return streamSchema;
  }

  /** The joins, if this processor has any. */
  public Optional<StreamJoins> joins() {
    return Optional.ofNullable(joins);
  }

  /**
   * Refreshes the dimension tables and returns their versions, which the batch's offsets entry
   * records.
   */
  @Override
  public Map<String, String> planBatch(long batchId) throws IOException {
    return joins == null ? Map.of() : joins.plan();
  }

  @Override
  public void beginBatch(BatchContext batch) {
    this.batchId = batch.batchId();
    this.batchStartedAt = batch.batchStartedAt();
    if (joins != null) {
      try {
        joins.pin(batch.extras()); // a replay joins with the versions its first attempt recorded
      } catch (IOException e) {
        throw new UncheckedIOException(e); // fails the batch like any read error
      }
    }
  }

  @Override
  public void process(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws Exception {
    if (layout != null) {
      processEvolving(record, outputs);
      return;
    }
    if (changes != null && record.value() == null && parser != null) {
      processTombstone(record, outputs);
      return;
    }
    processDecoded(record, decode(record), outputs);
  }

  /**
   * {@link #process} for a record already {@link #decode decoded} (a {@link #decodingAhead}
   * processor's worker did it): the same steps after the decoding, for the plain path only (no
   * evolving columns, no upsert's tombstones).
   */
  void processDecoded(
      ConsumerRecord<byte[], byte[]> record, ParseResult result, BatchOutputs outputs)
      throws IOException {
    Object[] row = toDecodedRow(record, result, outputs);
    String problem = row == null ? null : emit(row, outputs);
    if (problem != null) {
      quarantine(record, problem, outputs);
    }
  }

  /**
   * This processor for an engine that ends every batch ({@link #endBatch}) before it reads the
   * batch's outputs: Kafka records are decoded a chunk ahead on a worker thread ({@link
   * DecodeAheadProcessor}), every later step stays on the caller's thread in read order, so the
   * outputs are those of {@link #process} record by record, only written later (a record's rows may
   * appear as late as {@link #endBatch}). Returns this processor itself for typed rows (nothing to
   * decode) and for the paths that keep their own per-record steps: evolving columns ({@code
   * schema-evolution}) and upserts (a tombstone decodes its key instead of its value).
   */
  public RecordProcessor decodingAhead() {
    if (parser == null || layout != null || changes != null) {
      return this;
    }
    return new DecodeAheadProcessor(this, pipelineId + "-decode");
  }

  @Override
  public void processRow(SourceRow source, BatchOutputs outputs) throws Exception {
    Object[] row = toRow(source, outputs);
    String problem = row == null ? null : emit(row, outputs);
    if (problem != null) {
      quarantine(source, problem, outputs);
    }
  }

  /**
   * {@link #process} under schema evolution: the same steps, then each row becomes the table's row
   * with the record's extras (rescued data, values of added columns), adding columns first when the
   * record brings new ones. A record none of whose rows the table can take is quarantined, adding
   * nothing.
   */
  private void processEvolving(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws IOException {
    outputs.countInput();
    byte[] value = record.value();
    ParseResult result =
        value == null
            ? ParseResult.failure("record value is null (a tombstone)")
            : parser.decode(
                record.topic(), record.partition(), record.offset(), record.key(), value);
    if (result instanceof ParseResult.Failure failure) {
      quarantine(record, failure.error(), outputs);
      return;
    }
    if (result instanceof ParseResult.Skipped) {
      outputs.countFiltered(); // a record without a row (an envelope's control event)
      return;
    }
    ParseResult.Success success = (ParseResult.Success) result;
    Object[] row = afterParse(record, success.row(), outputs);
    if (row == null) {
      return;
    }
    List<Object[]> rows = join(row);
    if (rows.isEmpty()) {
      outputs.countFiltered();
      return;
    }
    for (Object[] out : rows) {
      String problem = sinkChecks.problem(out);
      if (problem != null) {
        quarantine(record, problem, outputs);
        return;
      }
    }
    List<Object[]> tableRows = new ArrayList<>(rows.size());
    try {
      for (Object[] out : rows) {
        tableRows.add(layout.tableRow(out, success.extras(), outputs::addColumns));
      }
    } catch (EvolvingLayout.Misfit misfit) {
      quarantine(record, misfit.getMessage(), outputs);
      return;
    }
    for (Object[] out : tableRows) {
      outputs.output(out);
    }
  }

  /**
   * Joins and writes a transformed row; returns why the sink cannot hold it (nothing written), or
   * null.
   */
  private String emit(Object[] row, BatchOutputs outputs) throws IOException {
    List<Object[]> rows = join(row);
    if (rows.isEmpty()) {
      outputs.countFiltered(); // an inner join found no dimension row
      return null;
    }
    // Checked here, not left to the writer: a writer failure fails the whole batch, every retry.
    for (Object[] out : rows) {
      String problem = sinkChecks == null ? null : sinkChecks.problem(out);
      if (problem != null) {
        return problem;
      }
    }
    if (changes != null) {
      for (Object[] out : rows) {
        String problem = changes.problem(out);
        if (problem != null) {
          return problem;
        }
      }
    }
    for (Object[] out : rows) {
      String refused = outputs.refusal(out); // e.g. a route that cannot name a table
      if (refused != null) {
        return refused;
      }
    }
    if (changes != null) {
      for (Object[] out : rows) {
        if (changes.deletes(out)) {
          outputs.delete(out);
        } else {
          outputs.output(out);
        }
      }
      return null;
    }
    if (tableRules != null) {
      // all or none of a record's rows: a refused one quarantines the record
      List<Object[]> tableRows = new ArrayList<>(rows.size());
      for (Object[] out : rows) {
        Object[] tableRow = tableRules.tableRow(out);
        String problem = tableRules.problem(tableRow);
        if (problem != null) {
          return problem;
        }
        tableRows.add(tableRow);
      }
      rows = tableRows;
    }
    for (Object[] out : rows) {
      outputs.output(out);
    }
    return null;
  }

  /**
   * A tombstone of a sink that merges by key: its key is decoded into the columns of the same
   * names, the Kafka columns are set, every other column is null, and the row deletes its key. It
   * skips the transforms (a filter on the value's columns would drop it) and the joins: the key
   * columns must come from the record key.
   */
  private void processTombstone(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws IOException {
    outputs.countInput();
    ParseResult result =
        parser.decodeKey(
            record.topic(),
            record.partition(),
            record.offset(),
            record.key(),
            changes.keyColumns());
    if (result instanceof ParseResult.Failure failure) {
      quarantine(record, failure.error(), outputs);
      return;
    }
    Object[] decoded = ((ParseResult.Success) result).row();
    StructType decodedSchema = parser.schema();
    Object[] row = new Object[outputSchema.size()];
    for (int i = 0; i < row.length; i++) {
      String name = outputSchema.fields().get(i).name();
      int from = decodedSchema.indexOf(name);
      if (from >= 0) {
        row[i] = decoded[from];
      }
    }
    setIfPresent(row, "_kafka_topic", record.topic());
    setIfPresent(row, "_kafka_partition", record.partition());
    setIfPresent(row, "_kafka_offset", record.offset());
    setIfPresent(row, "_kafka_timestamp", Instant.ofEpochMilli(record.timestamp()));
    String problem = changes.tombstoneProblem(row);
    if (problem == null && sinkChecks != null) {
      problem = sinkChecks.problem(row);
    }
    if (problem == null) {
      problem = outputs.refusal(row);
    }
    if (problem != null) {
      quarantine(record, problem, outputs);
      return;
    }
    outputs.delete(row);
  }

  private void setIfPresent(Object[] row, String column, Object value) {
    int i = outputSchema.indexOf(column);
    if (i >= 0) {
      row[i] = value;
    }
  }

  /**
   * The rows {@code row} (from {@link #toRow}) becomes after the joins: itself without joins; else
   * none (an inner join without a match), one, or one per matching dimension row.
   */
  public List<Object[]> join(Object[] row) {
    return joins == null ? Collections.singletonList(row) : joins.apply(row);
  }

  /** Sends the record to the quarantine table with {@code error}, in this batch. */
  public void quarantine(ConsumerRecord<byte[], byte[]> record, String error, BatchOutputs outputs)
      throws IOException {
    outputs.quarantine(QuarantineRows.row(record, error, pipelineId, batchId, batchStartedAt));
  }

  /** Sends a typed source row to the quarantine table with {@code error}, in this batch. */
  public void quarantine(SourceRow row, String error, BatchOutputs outputs) throws IOException {
    outputs.quarantine(
        QuarantineRows.row(row, rowSource, rowSchema, error, pipelineId, batchId, batchStartedAt));
  }

  /**
   * The stateless steps for one typed source row: counts it, applies the transforms to its values
   * and projects to the output order. Returns the row, or null when it went to quarantine (an
   * expression failed on it) or a filter removed it.
   */
  public Object[] toRow(SourceRow source, BatchOutputs outputs) throws IOException {
    outputs.countInput();
    if (parser != null) {
      throw new IllegalStateException(
          "Pipeline "
              + pipelineId
              + " parses records; it cannot take the table row "
              + source.provenance());
    }
    Object[] transformed;
    try {
      transformed = transforms.apply(source.values().clone());
    } catch (RuntimeException e) {
      quarantine(source, "transform failed: " + e.getMessage(), outputs);
      return null;
    }
    return expected(
        project(transformed, outputs),
        outputs,
        source::provenance,
        error -> quarantine(source, error, outputs));
  }

  /** Sends the input of the row at hand to the quarantine table with an error. */
  @FunctionalInterface
  private interface Quarantine {
    void send(String error) throws IOException;
  }

  /**
   * Applies the expectations to a transformed row: returns it when it may go on (it met every rule,
   * or the strongest violated one only warns), else null (dropped and counted as filtered, or
   * quarantined); throws for a rule that fails the batch.
   *
   * @param where names the input for a failure message
   */
  private Object[] expected(
      Object[] row, BatchOutputs outputs, Supplier<String> where, Quarantine quarantine)
      throws IOException {
    Expectations.Rule violated = row == null ? null : expectations.check(row, outputs);
    if (violated == null) {
      return row;
    }
    switch (violated.action()) {
      case WARN -> {
        return row;
      }
      case DROP -> outputs.countFiltered(); // input = output + quarantined + filtered
      case QUARANTINE -> quarantine.send(violated.describe());
      case FAIL -> throw new ExpectationFailedException(pipelineId, violated, where.get());
    }
    return null;
  }

  private Object[] project(Object[] transformed, BatchOutputs outputs) {
    if (transformed == null) {
      outputs.countFiltered();
      return null;
    }
    if (identityProjection && transformed.length == projection.length) {
      return transformed; // a bronze pipeline's rows: one array less per record
    }
    Object[] out = new Object[projection.length];
    for (int i = 0; i < projection.length; i++) {
      out[i] = transformed[projection[i]];
    }
    return out;
  }

  /**
   * The stateless steps for one record: counts it, parses it, appends the Kafka columns, applies
   * the transforms and projects to the output order. Returns the row, or null when the record went
   * to quarantine (unparseable, or an expression failed on it) or a filter removed it.
   */
  public Object[] toRow(ConsumerRecord<byte[], byte[]> record, BatchOutputs outputs)
      throws IOException {
    return toDecodedRow(record, decode(record), outputs);
  }

  /**
   * Decodes the record's key and value, the first of {@link #toRow}'s steps: thread-safe and
   * without side effects (as every {@link RecordDecoder}), so it may run ahead of the others on
   * another thread.
   *
   * @throws dev.tributary.service.parse.DecoderUnavailableException as {@link RecordDecoder#decode}
   */
  public ParseResult decode(ConsumerRecord<byte[], byte[]> record) {
    return parser.decode(
        record.topic(), record.partition(), record.offset(), record.key(), record.value());
  }

  /**
   * {@link #toRow(ConsumerRecord, BatchOutputs)} for a record already {@link #decode decoded}: the
   * same steps after the decoding, the record counted as input.
   */
  public Object[] toDecodedRow(
      ConsumerRecord<byte[], byte[]> record, ParseResult result, BatchOutputs outputs)
      throws IOException {
    outputs.countInput();
    return toRow(record, result, outputs);
  }

  private Object[] toRow(
      ConsumerRecord<byte[], byte[]> record, ParseResult result, BatchOutputs outputs)
      throws IOException {
    if (result instanceof ParseResult.Failure failure) {
      quarantine(record, failure.error(), outputs);
      return null;
    }
    if (result instanceof ParseResult.Skipped) {
      outputs.countFiltered(); // a record without a row (an envelope's control event)
      return null;
    }
    return afterParse(record, ((ParseResult.Success) result).row(), outputs);
  }

  /**
   * The steps after parsing: the Kafka columns, the transforms, the projection (see {@link
   * #toRow}). {@code parsed} holds at least the parser's columns ({@link RecordDecoder#schema()});
   * anything after them (a {@code columns: all} decoder's writer row) is left to the caller.
   * Returns null when the record went to quarantine or was filtered out.
   */
  public Object[] afterParse(
      ConsumerRecord<byte[], byte[]> record, Object[] parsed, BatchOutputs outputs)
      throws IOException {
    Object[] row = new Object[parsedWidth + KAFKA_COLUMNS.size()];
    System.arraycopy(parsed, 0, row, 0, parsedWidth);
    row[parsedWidth] = record.topic();
    row[parsedWidth + 1] = record.partition();
    row[parsedWidth + 2] = record.offset();
    row[parsedWidth + 3] = Instant.ofEpochMilli(record.timestamp());
    Object[] transformed;
    try {
      transformed = transforms.apply(row);
    } catch (RuntimeException e) {
      // A record that breaks an expression is quarantined like a malformed one: never a crash loop.
      quarantine(record, "transform failed: " + e.getMessage(), outputs);
      return null;
    }
    return expected(
        project(transformed, outputs),
        outputs,
        () -> record.topic() + " partition " + record.partition() + " offset " + record.offset(),
        error -> quarantine(record, error, outputs));
  }

  @Override
  public void endBatch(BatchOutputs outputs) {}

  @Override
  public void close() {
    if (joins != null) {
      joins.close();
    }
  }
}
