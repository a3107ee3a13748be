import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.tables.DeltaColumnBuilder;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.DataStreamWriter;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;

/**
 * The reference side of SparkDifferentialIT: real Spark 4 Structured Streaming with the Delta 4
 * sink, in local mode, run by Java's source launcher on the classpath of src/test/spark/pom.xml
 * (never compiled by our build, never on our test classpath).
 *
 * <p>Usage: {@code java <Spark's --add-opens> -cp <spark classpath> SparkJudge.java job.json}. The
 * job is one JSON object: {@code schema} (Spark DDL of the input files), {@code timestampFormat},
 * {@code cases}: each with
 * <ul>
 *   <li>{@code name}; {@code input}, the directory the file stream source reads (one JSON-lines
 *       file per Tributary batch, one file per trigger, in modification-time order);
 *   <li>{@code rounds}: per round, the files (staged elsewhere) that appear in {@code input}
 *       before that round; each round is one more {@code Trigger.AvailableNow} run of the query on
 *       the same checkpoint, as each round is one more available-now run of ours;
 *   <li>optional {@code watermark} ({@code column}, {@code delay}), optional {@code dropDuplicates}
 *       or {@code dropDuplicatesWithinWatermark} (column names, applied after the watermark);
 *   <li>{@code sql} over the view {@code events}, {@code columns} (the output columns, in order);
 *   <li>{@code outputMode}: {@code append} and {@code complete} write with Delta's streaming sink;
 *       {@code update} cannot (Delta's sink refuses it), so it upserts each micro-batch with
 *       {@code foreachBatch} and a Delta MERGE on {@code mergeKeys} (null-safe equality);
 *   <li>{@code table}, {@code checkpoint} (directories); optional {@code show} (print the table).
 *   <li>optional {@code schema} (the case's own input DDL) and {@code join}, a stream-stream join
 *       (issue 25): {@code input}, {@code schema} and {@code rounds} of the second (right) input,
 *       {@code prefix} (every right column is renamed {@code prefix + name}), optional
 *       {@code watermark} (on the prefixed column), {@code on} (left key names), {@code time} (a
 *       SQL condition over both sides' columns, or empty), {@code type} (Spark's join type name),
 *       optional {@code multiple} (spark.sql.streaming.multipleWatermarkPolicy, set on a new
 *       session of the case's own). Rows with {@code _marker} set (a file written for an input
 *       without records in a batch) are dropped before the watermarks. The case's optional
 *       {@code dropDuplicates} or {@code dropDuplicatesWithinWatermark} apply to the joined rows;
 *       the {@code sql}, if any, is over the view {@code joined}; the batches then also record
 *       each input's rows ({@code left}, {@code right}, markers included).
 * </ul>
 * All cases run in one session, one after the other. Optional {@code refusals} (after the cases)
 * are join cases Spark should refuse: each is started on the no-op sink (with {@code
 * dropDuplicates: true}, deduplicated over the join) and its error, causes included, or {@code no
 * error}, is written to {@code expectError}. For each case the judge writes
 * {@code <table>.batches.json}: per round, the micro-batches Spark ran (batch id, input rows, the
 * watermark it applied), so the test can check Spark cut the stream where we did, no-data
 * batches included. Any failure exits non-zero with the stack trace on stderr.
 *
 * <p>A second job kind writes source tables for SparkInteropIT: optional {@code tables}, each
 * with {@code path}, {@code partitionBy} (a column name or empty), {@code checkpointInterval} and
 * {@code steps}: {@code {"op":"append","from":a,"to":b}} (rows a..b-1: {@code id},
 * {@code name = 'name-'||id}, {@code region} EU/US/null by {@code id % 3}, in two files per
 * partition), {@code {"op":"optimize"}} (Delta's OPTIMIZE compaction) and
 * {@code {"op":"delete","where":"<sql>"}}. The table is created first by SQL with deletion vectors
 * off (a DELETE then removes or rewrites files, which is what the source rules judge). Tables are
 * written before the cases run; each leaves {@code <path>.ids.json}, the ids Spark reads from the
 * final table, sorted.
 *
 * <p>Optional {@code sqlTables}, each with {@code path} and {@code statements} (Spark SQL, or an
 * object for Delta's table builder, see {@link #createWithBuilder};
 * {@code {path}} standing for the path), make tables with whatever table features the statements
 * turn on (deletion vectors, column mapping, ...); each leaves {@code <path>.spark.json}, the rows
 * Spark reads (JSON lines ordered by the first column), and {@code <path>.version}.
 *
 * <p>Optional {@code pause} ({@code ready}, {@code resume}: two file paths; {@code minutes}, 5 if
 * not given): after the tables and the reads, the judge writes {@code ready} and waits (that many
 * minutes at most) for {@code resume}, a JSON object whose {@code reads} it then does too, so that
 * a test can write to the tables Spark made and have the same Spark read the result back; then the
 * resume object's {@code cases} and {@code refusals} (with its {@code schema} and
 * {@code timestampFormat}), so that a test can start Spark while it computes its own side.
 *
 * <p>A third job kind reads tables Tributary wrote: optional {@code reads}, each with {@code path} and
 * {@code out}; the judge writes the table's rows to {@code out} as JSON lines (Spark's {@code toJSON},
 * null columns left out), ordered by the first column, and its column names to {@code out.columns};
 * with {@code history}, also the table's {@code DESCRIBE HISTORY} (version, operation) to that file.
 * A read's optional {@code statements} (Spark SQL, {@code {path}} standing for its path) run first:
 * Spark writes to a table after Tributary did, then reads it; a statement given as an object
 * ({@code sql}, {@code expectError}: a file) is one Spark should refuse, its error message written
 * to that file ({@code no error} if it succeeded).
 */
public class SparkJudge {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    JsonNode job = JSON.readTree(new File(args[0]));
    SparkSession spark = SparkSession.builder()
        .appName("tributary-spark-judge")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        // small inputs: one shuffle partition is one state store and one task per stateful stage
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.default.parallelism", "1")
        .config("spark.sql.streaming.numRecentProgressUpdates", "10000")
        // Delta rebuilds a table's snapshot with this many tasks (default 50) on every commit
        .config("spark.databricks.delta.snapshotPartitions", "1")
        // tens of rows per batch: compiling generated code for every batch's plan costs more
        // than interpreting it
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.sql.session.timeZone", "UTC")
        // the JSON reader would apply pushed filters (a join's inferred user_id IS NOT NULL, the
        // join cases' _marker IS NULL) inside the scan, and a source's numInputRows counts what
        // the scan returns: read every row, so that the batch cut compares the rows each file holds
        .config("spark.sql.json.filterPushdown.enabled", "false")
        .config("spark.sql.warehouse.dir", job.path("warehouse").asText("spark-warehouse"))
        // Delta's sink writes what Spark's Parquet writer gives it; INT96 timestamps are legacy
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      for (JsonNode t : job.path("tables")) {
        writeTable(spark, t);
      }
      for (JsonNode t : job.path("sqlTables")) {
        sqlTable(spark, t);
      }
      for (JsonNode r : job.path("reads")) {
        read(spark, r);
      }
      if (job.has("pause")) {
        // the test writes to the tables made above, then lists what to read back in the resume file
        Path ready = Path.of(job.get("pause").get("ready").asText());
        Path resume = Path.of(job.get("pause").get("resume").asText());
        Files.writeString(ready, "ready");
        int minutes = job.get("pause").path("minutes").asInt(5);
        long deadline = System.currentTimeMillis() + minutes * 60_000L;
        while (!Files.exists(resume)) {
          if (System.currentTimeMillis() > deadline) {
            throw new IllegalStateException("no " + resume + " within " + minutes + " minutes");
          }
          Thread.sleep(100);
        }
        JsonNode more = JSON.readTree(resume.toFile());
        for (JsonNode r : more.path("reads")) {
          read(spark, r);
        }
        // cases given only now: the session started while the test ran its own side
        for (JsonNode c : more.path("cases")) {
          runCase(spark, more, c);
        }
        for (JsonNode r : more.path("refusals")) {
          refusal(spark, more, r);
        }
      }
      for (JsonNode c : job.path("cases")) {
        runCase(spark, job, c);
      }
      for (JsonNode r : job.path("refusals")) {
        refusal(spark, job, r);
      }
      for (JsonNode t : job.path("timed")) {
        timed(spark, t);
      }
    } finally {
      spark.stop();
    }
  }

  private static void read(SparkSession spark, JsonNode r) throws Exception {
    // optional statements first: Spark writes to the table after the test did ({path} = its path)
    for (JsonNode statement : r.path("statements")) {
      if (statement.isObject()) {
        // a statement Spark must refuse: its error (or "no error") goes to the file named
        String outcome = "no error";
        try {
          spark.sql(statement.get("sql").asText().replace("{path}", r.get("path").asText()))
              .collectAsList();
        } catch (Exception e) {
          outcome = String.valueOf(e.getMessage());
        }
        Files.writeString(Path.of(statement.get("expectError").asText()), outcome);
      } else {
        spark.sql(statement.asText().replace("{path}", r.get("path").asText()));
      }
    }
    Dataset<Row> table = spark.read().format("delta").load(r.get("path").asText());
    Files.write(Path.of(r.get("out").asText()),
        table.orderBy(table.columns()[0]).toJSON().collectAsList());
    Files.writeString(Path.of(r.get("out").asText() + ".columns"), String.join(",", table.columns()));
    if (r.has("history")) {
      // DESCRIBE HISTORY as Spark shows it: the operation each commit's commitInfo names
      Dataset<Row> history = spark.sql(
          "DESCRIBE HISTORY delta.`" + r.get("path").asText() + "`").select("version", "operation");
      Files.write(Path.of(r.get("history").asText()), history.orderBy("version").toJSON().collectAsList());
    }
  }

  private static void runCase(SparkSession spark, JsonNode job, JsonNode c) throws Exception {
    String name = c.get("name").asText();
    long started = System.nanoTime();
    Path input = Files.createDirectories(Path.of(c.get("input").asText()));
    ArrayNode rounds = JSON.createArrayNode();
    int round = 0;
    for (JsonNode files : c.get("rounds")) {
      // the round's files appear only now, as its records appeared in Kafka only before our run
      for (JsonNode f : files) {
        Path staged = Path.of(f.asText());
        Files.move(staged, input.resolve(staged.getFileName())); // a rename keeps the mtime
      }
      if (c.has("join")) {
        Path right = Files.createDirectories(Path.of(c.get("join").get("input").asText()));
        for (JsonNode f : c.get("join").get("rounds").get(round)) {
          Path staged = Path.of(f.asText());
          Files.move(staged, right.resolve(staged.getFileName()));
        }
      }
      StreamingQuery query = start(spark, job, c, round);
      query.awaitTermination();
      // one progress per batch id: an idle trigger may report the last batch again
      Map<Long, StreamingQueryProgress> byBatch = new LinkedHashMap<>();
      for (StreamingQueryProgress p : query.recentProgress()) {
        byBatch.put(p.batchId(), p);
      }
      ArrayNode batches = rounds.addArray();
      for (StreamingQueryProgress p : byBatch.values()) {
        ObjectNode b = batches.addObject();
        b.put("batch", p.batchId());
        b.put("rows", p.numInputRows());
        b.put("watermark", p.eventTime().getOrDefault("watermark", ""));
        b.put("ms", p.batchDuration());
        if (c.has("join")) {
          // per input, by the folder its file source reads: the left's and the right's rows
          b.put("left", inputRows(p, c.get("input").asText()));
          b.put("right", inputRows(p, c.get("join").get("input").asText()));
        }
        // what the batch exercised, over its stateful operators: rows dropped as late, state rows
        // removed (evicted)
        long late = 0;
        long evicted = 0;
        for (var operator : p.stateOperators()) {
          late += operator.numRowsDroppedByWatermark();
          evicted += operator.numRowsRemoved();
        }
        b.put("late", late);
        b.put("evicted", evicted);
        ObjectNode phases = b.putObject("phases"); // where the batch's time went (ms)
        p.durationMs().forEach((phase, ms) -> phases.put(phase, ms));
      }
      round++;
    }
    Files.writeString(Path.of(c.get("table").asText() + ".batches.json"), JSON.writeValueAsString(rounds));
    System.out.printf("case %s: %d rounds, micro-batches %s in %d ms; phases %s%n", name, rounds.size(),
        summary(rounds), (System.nanoTime() - started) / 1_000_000, phases(rounds));
    if (c.path("show").asBoolean(false)) {
      Dataset<Row> table = spark.read().format("delta").load(c.get("table").asText());
      table.orderBy(table.columns()[0], Stream.of(table.columns()).skip(1).toArray(String[]::new))
          .show(1000, false);
    }
  }

  private static StreamingQuery start(SparkSession session, JsonNode job, JsonNode c, int round) throws Exception {
    // the policy is read when the query starts (and then kept in its checkpoint): a session of
    // the case's own
    SparkSession spark = c.has("join") && c.get("join").has("multiple") ? session.newSession() : session;
    if (spark != session) {
      spark.conf().set("spark.sql.streaming.multipleWatermarkPolicy", c.get("join").get("multiple").asText());
    }
    // a case's batch is tens of rows and its table is compared by rows only: Delta's sink need not
    // compute file statistics, nor Parquet compress, nor write a checksum file (.crc: the table's
    // size and file counts, which Delta computes after each commit) for each version (for the
    // cases only: SparkInteropIT's tables keep all three)
    spark.conf().set("spark.databricks.delta.stats.collect", "false");
    spark.conf().set("spark.sql.parquet.compression.codec", "uncompressed");
    spark.conf().set("spark.databricks.delta.writeChecksumFile.enabled", "false");
    if (c.has("join")) {
      Dataset<Row> joined = joined(spark, job, c);
      // a deduplication after the join (issue 25): on the joined rows, whose event-time column is
      // the watermarked input's
      if (c.has("dropDuplicates")) {
        joined = joined.dropDuplicates(strings(c.get("dropDuplicates")));
      }
      if (c.has("dropDuplicatesWithinWatermark")) {
        joined = joined.dropDuplicatesWithinWatermark(strings(c.get("dropDuplicatesWithinWatermark")));
      }
      joined.createOrReplaceTempView("joined");
      Dataset<Row> result = c.has("sql") ? spark.sql(c.get("sql").asText()) : spark.table("joined");
      return c.get("outputMode").asText().equals("append")
          ? writer(result, c, round).format("delta").start(c.get("table").asText())
          : writer(result, c, round).format("noop").start();
    }
    Dataset<Row> events = spark.readStream()
        .schema(job.get("schema").asText())
        .option("timestampFormat", job.get("timestampFormat").asText())
        .option("maxFilesPerTrigger", "1")
        .json(c.get("input").asText());
    if (c.has("watermark")) {
      JsonNode watermark = c.get("watermark");
      events = events.withWatermark(watermark.get("column").asText(), watermark.get("delay").asText());
    }
    if (c.has("dropDuplicates")) {
      events = events.dropDuplicates(strings(c.get("dropDuplicates")));
    }
    if (c.has("dropDuplicatesWithinWatermark")) {
      events = events.dropDuplicatesWithinWatermark(strings(c.get("dropDuplicatesWithinWatermark")));
    }
    events.createOrReplaceTempView("events");
    String[] columns = strings(c.get("columns"));
    Column[] select = new Column[columns.length];
    for (int i = 0; i < columns.length; i++) {
      select[i] = new Column(columns[i]);
    }
    Dataset<Row> result = spark.sql(c.get("sql").asText()).select(select);
    String mode = c.get("outputMode").asText();
    String table = c.get("table").asText();
    DataStreamWriter<Row> writer = result.writeStream()
        .outputMode(mode)
        .option("checkpointLocation", c.get("checkpoint").asText())
        .trigger(Trigger.AvailableNow())
        .queryName(c.get("name").asText() + "-round-" + round);
    if (!mode.equals("update")) {
      return writer.format("delta").start(table);
    }
    String on = Stream.of(strings(c.get("mergeKeys")))
        .map(k -> "t.`" + k + "` <=> s.`" + k + "`").collect(Collectors.joining(" AND "));
    // An upsert is idempotent by itself: replaying batch N (a crash before Spark's commit log
    // entry N) merges the same rows again and leaves the same table, so no txnAppId is needed.
    return writer.foreachBatch((VoidFunction2<Dataset<Row>, Long>) (batch, id) -> {
      if (!DeltaTable.isDeltaTable(spark, table)) {
        // an update batch holds each key once, so the first one can simply be the table
        batch.write().format("delta").mode("append").save(table);
      } else {
        DeltaTable.forPath(spark, table).as("t").merge(batch.as("s"), on)
            .whenMatched().updateAll().whenNotMatched().insertAll().execute();
      }
    }).start();
  }

  /**
   * A stream-stream join case's input (issue 25): the left file stream ({@code input}, the case's
   * {@code schema}) and the right ({@code join.input}, {@code join.schema}), one file per trigger
   * each; marker rows ({@code _marker}, written for an input without records in a batch so that
   * batch i reads file i of both) are dropped before the watermarks; the right's columns renamed
   * {@code join.prefix + name}; then {@code left.join(right, on-equalities AND join.time,
   * join.type)}. Watermarks ({@code watermark}, {@code join.watermark}) name the columns as they
   * are after the renaming.
   */
  private static Dataset<Row> joined(SparkSession spark, JsonNode job, JsonNode c) {
    JsonNode j = c.get("join");
    Dataset<Row> left = fileStream(spark, job, c.get("schema").asText(), c.get("input").asText());
    if (c.has("watermark")) {
      left = left.withWatermark(c.get("watermark").get("column").asText(), c.get("watermark").get("delay").asText());
    }
    Dataset<Row> right = fileStream(spark, job, j.get("schema").asText(), j.get("input").asText());
    String prefix = j.get("prefix").asText();
    for (String column : right.columns()) {
      right = right.withColumnRenamed(column, prefix + column);
    }
    if (j.has("watermark")) {
      right = right.withWatermark(j.get("watermark").get("column").asText(), j.get("watermark").get("delay").asText());
    }
    Column condition = null;
    for (JsonNode key : j.get("on")) {
      Column equal = left.col(key.asText()).equalTo(right.col(prefix + key.asText()));
      condition = condition == null ? equal : condition.and(equal);
    }
    if (!j.path("time").asText("").isEmpty()) {
      condition = condition.and(org.apache.spark.sql.functions.expr(j.get("time").asText()));
    }
    return left.join(right, condition, j.get("type").asText());
  }

  private static Dataset<Row> fileStream(SparkSession spark, JsonNode job, String schema, String folder) {
    return spark.readStream()
        .schema(schema)
        .option("timestampFormat", job.get("timestampFormat").asText())
        .option("maxFilesPerTrigger", "1")
        .json(folder)
        .filter("_marker IS NULL")
        .drop("_marker");
  }

  private static DataStreamWriter<Row> writer(Dataset<Row> result, JsonNode c, int round) {
    String[] columns = strings(c.get("columns"));
    Column[] select = new Column[columns.length];
    for (int i = 0; i < columns.length; i++) {
      select[i] = new Column(columns[i]);
    }
    return result.select(select).writeStream()
        .outputMode(c.get("outputMode").asText())
        .option("checkpointLocation", c.get("checkpoint").asText())
        .trigger(Trigger.AvailableNow())
        .queryName(c.get("name").asText() + "-round-" + round);
  }

  /** The rows a batch read from the file source of {@code folder} (markers included). */
  private static long inputRows(StreamingQueryProgress p, String folder) {
    long rows = 0;
    for (var source : p.sources()) {
      if (source.description().endsWith(Path.of(folder).getFileName() + "]")) {
        rows += source.numInputRows();
      }
    }
    return rows;
  }

  /**
   * A query Spark should refuse (refusal parity, issue 25): built as a join case (optionally with
   * {@code dropDuplicates} over the join), written to the no-op sink in {@code outputMode} and run
   * available-now (a refusal may come when the first batch is planned); its error message, causes
   * included, or {@code no error}, goes to {@code expectError}.
   */
  private static void refusal(SparkSession spark, JsonNode job, JsonNode r) throws Exception {
    String outcome = "no error";
    try {
      Dataset<Row> result = joined(spark, job, r);
      if (r.path("dropDuplicates").asBoolean(false)) {
        result = result.dropDuplicates();
      }
      StreamingQuery query = result.writeStream()
          .outputMode(r.get("outputMode").asText())
          .option("checkpointLocation", r.get("checkpoint").asText())
          .trigger(Trigger.AvailableNow())
          .format("noop")
          .start();
      query.awaitTermination();
    } catch (Exception e) {
      StringBuilder messages = new StringBuilder();
      for (Throwable t = e; t != null; t = t.getCause()) {
        messages.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append('\n');
      }
      outcome = messages.toString();
    }
    Files.writeString(Path.of(r.get("expectError").asText()), outcome);
    System.out.printf("refusal %s: %s%n", r.get("name").asText(), outcome.lines().findFirst().orElse(""));
  }

  private static void writeTable(SparkSession spark, JsonNode t) throws Exception {
    String path = t.get("path").asText();
    String partitionBy = t.path("partitionBy").asText("");
    spark.sql("CREATE TABLE delta.`" + path + "` (id BIGINT, name STRING, region STRING) USING delta"
        + (partitionBy.isEmpty() ? "" : " PARTITIONED BY (" + partitionBy + ")")
        + " TBLPROPERTIES ('delta.checkpointInterval' = '" + t.get("checkpointInterval").asInt() + "',"
        + " 'delta.enableDeletionVectors' = 'false')");
    for (JsonNode step : t.get("steps")) {
      String op = step.get("op").asText();
      if (op.equals("append")) {
        Dataset<Row> rows = spark.range(step.get("from").asLong(), step.get("to").asLong())
            .selectExpr("id", "concat('name-', cast(id as string)) as name",
                "case id % 3 when 0 then 'EU' when 1 then 'US' end as region")
            .repartition(2);
        rows.write().format("delta").mode("append").save(path);
      } else if (op.equals("optimize")) {
        DeltaTable.forPath(spark, path).optimize().executeCompaction();
      } else if (op.equals("delete")) {
        DeltaTable.forPath(spark, path).delete(step.get("where").asText());
      } else {
        throw new IllegalArgumentException("unknown table step " + step);
      }
    }
    ArrayNode ids = JSON.createArrayNode();
    for (Row r : spark.read().format("delta").load(path).select("id").orderBy("id").collectAsList()) {
      ids.add(r.getLong(0));
    }
    Files.writeString(Path.of(path + ".ids.json"), JSON.writeValueAsString(ids));
    System.out.printf("table %s: version %d, %d rows%n", path,
        DeltaTable.forPath(spark, path).history(1).select("version").first().getLong(0), ids.size());
  }

  /**
   * A table made by SQL statements ({@code {path}} in them stands for the table's path), then its
   * rows as Spark reads them written to {@code <path>.spark.json} (JSON lines ordered by the first
   * column, nulls kept) and its last version to {@code <path>.version}.
   */
  private static void sqlTable(SparkSession spark, JsonNode t) throws Exception {
    String path = t.get("path").asText();
    for (JsonNode statement : t.get("statements")) {
      if (statement.isObject()) {
        createWithBuilder(spark, path, statement);
      } else {
        spark.sql(statement.asText().replace("{path}", path));
      }
    }
    Dataset<Row> table = spark.read().format("delta").load(path);
    Files.write(Path.of(path + ".spark.json"),
        table.orderBy(table.columns()[0]).toJSON().collectAsList());
    long version = DeltaTable.forPath(spark, path).history(1).select("version").first().getLong(0);
    Files.writeString(Path.of(path + ".version"), Long.toString(version));
    System.out.printf("sql table %s: version %d, %d rows%n", path, version, table.count());
  }

  /**
   * A table made with Delta's builder API, for what Delta 4.0's SQL cannot declare (generated and
   * identity columns: UNSUPPORTED_FEATURE.TABLE_OPERATION on CREATE TABLE): {@code columns}, each
   * with {@code name}, {@code type} and optionally {@code generatedAlwaysAs} (a SQL expression) or
   * {@code identityStart} and {@code identityStep} (GENERATED ALWAYS AS IDENTITY).
   */
  private static void createWithBuilder(SparkSession spark, String path, JsonNode create) {
    DeltaTableBuilder builder = DeltaTable.create(spark).location(path);
    for (JsonNode c : create.get("columns")) {
      DeltaColumnBuilder column =
          DeltaTable.columnBuilder(spark, c.get("name").asText()).dataType(c.get("type").asText());
      if (c.has("generatedAlwaysAs")) {
        column = column.generatedAlwaysAs(c.get("generatedAlwaysAs").asText());
      }
      if (c.has("identityStart")) {
        column =
            column.generatedAlwaysAsIdentity(
                c.get("identityStart").asLong(), c.get("identityStep").asLong());
      }
      builder = builder.addColumn(column.build());
    }
    builder.execute();
  }

  /**
   * Statements timed one by one (benchmarks): per statement but {@code SET} a JSON line in {@code out} with its
   * milliseconds and, for a SELECT, its rows, else the operationMetrics of the table's last commit
   * ({@code path}).
   */
  private static void timed(SparkSession spark, JsonNode t) throws Exception {
    String path = t.get("path").asText();
    List<String> lines = new ArrayList<>();
    for (JsonNode statement : t.get("statements")) {
      String sql = statement.asText().replace("{path}", path);
      if (sql.strip().toUpperCase().startsWith("SET ")) {
        spark.sql(sql); // a setting: nothing to time or record
        continue;
      }
      long start = System.nanoTime();
      Dataset<Row> result = spark.sql(sql);
      ObjectNode line = JSON.createObjectNode();
      if (sql.strip().toUpperCase().startsWith("SELECT")) {
        ArrayNode rows = line.putArray("rows");
        result.toJSON().collectAsList().forEach(r -> rows.add(r));
        line.put("ms", (System.nanoTime() - start) / 1_000_000);
      } else {
        result.collectAsList();
        line.put("ms", (System.nanoTime() - start) / 1_000_000);
        ObjectNode metrics = line.putObject("metrics");
        Row last = DeltaTable.forPath(spark, path).history(1).select("operationMetrics").first();
        if (!last.isNullAt(0)) {
          java.util.Map<String, String> m = last.getJavaMap(0);
          m.forEach(metrics::put);
        }
      }
      lines.add(line.toString());
      System.out.printf("timed %s: %s ms%n", path, line.get("ms"));
    }
    Files.write(Path.of(t.get("out").asText()), lines);
  }

  /** Each phase's milliseconds summed over the case's batches (Spark's durationMs keys). */
  private static Map<String, Long> phases(ArrayNode rounds) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (JsonNode r : rounds) {
      for (JsonNode b : r) {
        b.path("phases").fields().forEachRemaining(e -> out.merge(e.getKey(), e.getValue().asLong(), Long::sum));
      }
    }
    return out;
  }

  private static String summary(ArrayNode rounds) {
    StringBuilder out = new StringBuilder();
    for (JsonNode r : rounds) {
      out.append('[');
      for (JsonNode b : r) {
        out.append(b.get("rows").asLong()).append(" (").append(b.get("ms").asLong()).append(" ms)")
            .append(b == r.get(r.size() - 1) ? "" : ", ");
      }
      out.append(']');
    }
    return out.toString();
  }

  private static String[] strings(JsonNode array) {
    String[] out = new String[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asText();
    }
    return out;
  }
}
