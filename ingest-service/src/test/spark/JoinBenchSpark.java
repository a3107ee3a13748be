import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StateOperatorProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of the stream-join benchmark (bench/run-join-bench, JoinBench): Spark 4
 * Structured Streaming with Spark's Kafka source, the RocksDB state store and Delta 4's sink, in
 * local mode, run by Java's source launcher on the classpath of pom.xml next to this file.
 *
 * <p>Usage: {@code java <Spark's --add-opens> -cp <spark classpath> JoinBenchSpark.java job.json}.
 * The job is one JSON object: {@code bootstrap}; {@code clicks} and {@code purchases}, each with
 * {@code topic}, {@code schema} (Spark DDL of the JSON values) and {@code maxOffsetsPerTrigger};
 * {@code delay} (both watermarks), {@code prefix} (of the purchases' columns), {@code condition}
 * (the join condition over the prefixed columns), {@code table}, {@code checkpoint}, {@code
 * shufflePartitions} and {@code result}. The query is the seed query as a Spark user writes it: the
 * JSON values parsed with {@code from_json}, the clicks' Kafka topic, partition, offset and
 * timestamp kept as {@code _kafka_*} (Tributary's provenance columns, so that the two tables have
 * the same columns), both inputs watermarked, an inner stream-stream join, append to Delta, {@code
 * Trigger.AvailableNow}. Spark's code generation and compilers are its defaults.
 *
 * <p>Writes {@code result}: the query's milliseconds (start to termination), the batches (a line
 * each), input rows, the rows in the table, the join state's rows and memory at the end (Spark's own figures, both sides
 * together), and this process's peak RSS (VmHWM). Any failure exits non-zero.
 */
public class JoinBenchSpark {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    JsonNode job = JSON.readTree(new File(args[0]));
    SparkSession spark =
        SparkSession.builder()
            .appName("tributary-join-bench")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            // Spark's default 200 would make 800 RocksDB instances (4 stores per partition) in
            // every batch of a 2-core run; a user of local[2] sets it to the cores
            .config("spark.sql.shuffle.partitions", job.path("shufflePartitions").asText("2"))
            .config(
                "spark.sql.streaming.stateStore.providerClass",
                "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      String delay = job.get("delay").asText();
      Dataset<Row> clicks =
          input(spark, job, job.get("clicks"), true).withWatermark("event_ts", delay);
      Dataset<Row> purchases = input(spark, job, job.get("purchases"), false);
      String prefix = job.get("prefix").asText();
      for (String c : purchases.columns()) {
        purchases = purchases.withColumnRenamed(c, prefix + c);
      }
      purchases = purchases.withWatermark(prefix + "event_ts", delay);
      Dataset<Row> joined =
          clicks.join(purchases, functions.expr(job.get("condition").asText()), "inner");

      long start = System.nanoTime();
      StreamingQuery query =
          joined
              .writeStream()
              .format("delta")
              .outputMode("append")
              .option("checkpointLocation", job.get("checkpoint").asText())
              .trigger(Trigger.AvailableNow())
              .start(job.get("table").asText());
      query.awaitTermination();
      long ms = (System.nanoTime() - start) / 1_000_000;

      long inputRows = 0;
      int batches = 0;
      ArrayNode lines = JSON.createArrayNode();
      for (StreamingQueryProgress p : query.recentProgress()) {
        inputRows += p.numInputRows();
        batches++;
        lines.add(
            String.format(
                "batch %d: %,d rows in, %,d ms, watermark %s",
                p.batchId(),
                p.numInputRows(),
                p.durationMs().get("triggerExecution"),
                p.eventTime().get("watermark")));
      }
      // Delta's sink does not report its rows (-1): counted in the table, after the timing
      long outputRows = spark.read().format("delta").load(job.get("table").asText()).count();
      ObjectNode result = JSON.createObjectNode();
      result.put("ms", ms);
      result.put("batches", batches);
      result.put("inputRows", inputRows);
      result.put("outputRows", outputRows);
      result.set("batchLines", lines);
      StreamingQueryProgress last = query.lastProgress();
      if (last != null && last.stateOperators().length > 0) {
        StateOperatorProgress state = last.stateOperators()[0];
        result.put("stateRows", state.numRowsTotal());
        result.put("stateMemoryBytes", state.memoryUsedBytes());
        ObjectNode custom = result.putObject("stateCustomMetrics");
        for (Map.Entry<String, Long> m : state.customMetrics().entrySet()) {
          custom.put(m.getKey(), m.getValue());
        }
      }
      result.put("peakRssKb", peakRssKb());
      Files.writeString(Path.of(job.get("result").asText()), JSON.writeValueAsString(result));
    } finally {
      spark.stop();
    }
  }

  /**
   * One topic's records as the JSON values' columns (the clicks' also with the Kafka provenance
   * columns), read with at most {@code maxOffsetsPerTrigger} offsets per batch.
   */
  private static Dataset<Row> input(SparkSession spark, JsonNode job, JsonNode in, boolean kafka) {
    Dataset<Row> records =
        spark
            .readStream()
            .format("kafka")
            .option("kafka.bootstrap.servers", job.get("bootstrap").asText())
            .option("subscribe", in.get("topic").asText())
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", in.get("maxOffsetsPerTrigger").asLong())
            .load();
    StructType schema = StructType.fromDDL(in.get("schema").asText());
    Column value =
        functions
            .from_json(
                records.col("value").cast("string"),
                schema,
                Map.of("timestampFormat", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"))
            .as("v");
    if (!kafka) {
      return records.select(value).select("v.*");
    }
    return records
        .select(
            value,
            records.col("topic").as("_kafka_topic"),
            records.col("partition").as("_kafka_partition"),
            records.col("offset").as("_kafka_offset"),
            records.col("timestamp").as("_kafka_timestamp"))
        .select("v.*", "_kafka_topic", "_kafka_partition", "_kafka_offset", "_kafka_timestamp");
  }

  /** This process's peak resident set (Linux VmHWM), or -1. */
  private static long peakRssKb() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (Exception e) {
      // not Linux
    }
    return -1;
  }
}
