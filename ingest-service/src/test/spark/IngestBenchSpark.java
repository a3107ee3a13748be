import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of the ingest benchmark (bench/run-spark-bench, IngestBench): Spark 4 Structured
 * Streaming with Spark's Kafka source and Delta 4's sink in {@code local[2]}, run by Java's source
 * launcher on the classpath of pom.xml next to this file.
 *
 * <p>Usage: {@code java <Spark's --add-opens> -cp <spark classpath> IngestBenchSpark.java job.json}.
 * The job: {@code bootstrap}, {@code topic}, {@code schema} (Spark DDL of the JSON values), {@code
 * maxOffsetsPerTrigger}, {@code variant} ({@code bronze} or {@code seed-query}), {@code table},
 * {@code checkpoint}, {@code shufflePartitions} and {@code result}. The queries as a Spark user
 * writes them: bronze, the values parsed with {@code from_json} and the Kafka topic, partition,
 * offset and timestamp kept as {@code _kafka_*} (Tributary's provenance columns); the seed query,
 * {@code withWatermark("event_ts", "10 minutes").dropDuplicates("event_id", "event_ts")
 * .groupBy(window("event_ts", "5 minutes"), "event_type").agg(count, sum(amount))}, append, the
 * window flattened to {@code window_start}/{@code window_end} as Tributary names them. Both
 * {@code Trigger.AvailableNow}, Spark's defaults otherwise (RocksDB is not the default state store:
 * not set).
 *
 * <p>Writes {@code result}: this JVM's start, the first batch's start and the query's end (epoch
 * milliseconds), the batches (a line each), input rows, the rows in the table (counted after the
 * timing), the process's CPU time and peak RSS (VmHWM) at the query's end. Any failure exits
 * non-zero.
 */
public class IngestBenchSpark {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
    JsonNode job = JSON.readTree(new File(args[0]));
    SparkSession spark =
        SparkSession.builder()
            .appName("tributary-ingest-bench")
            .master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            // Spark's default 200 is for clusters; a user of local[2] sets it to the cores
            .config("spark.sql.shuffle.partitions", job.path("shufflePartitions").asText("2"))
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config(
                "spark.sql.catalog.spark_catalog",
                "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      Dataset<Row> records =
          spark
              .readStream()
              .format("kafka")
              .option("kafka.bootstrap.servers", job.get("bootstrap").asText())
              .option("subscribe", job.get("topic").asText())
              .option("startingOffsets", "earliest")
              .option("maxOffsetsPerTrigger", job.get("maxOffsetsPerTrigger").asLong())
              .load();
      StructType schema = StructType.fromDDL(job.get("schema").asText());
      Dataset<Row> parsed =
          records.select(
              functions
                  .from_json(
                      records.col("value").cast("string"),
                      schema,
                      Map.of("timestampFormat", "yyyy-MM-dd'T'HH:mm:ss[.SSS]XXX"))
                  .as("v"),
              records.col("topic").as("_kafka_topic"),
              records.col("partition").as("_kafka_partition"),
              records.col("offset").as("_kafka_offset"),
              records.col("timestamp").as("_kafka_timestamp"));
      Dataset<Row> query;
      if (job.get("variant").asText().equals("bronze")) {
        query =
            parsed.select(
                "v.*", "_kafka_topic", "_kafka_partition", "_kafka_offset", "_kafka_timestamp");
      } else {
        query =
            parsed
                .select("v.*")
                .withWatermark("event_ts", "10 minutes")
                .dropDuplicates("event_id", "event_ts")
                .groupBy(
                    functions.window(functions.col("event_ts"), "5 minutes"),
                    functions.col("event_type"))
                .agg(functions.count("*").as("events"), functions.sum("amount").as("amount"))
                .select(
                    functions.col("window.start").as("window_start"),
                    functions.col("window.end").as("window_end"),
                    functions.col("event_type"),
                    functions.col("events"),
                    functions.col("amount"));
      }
      StreamingQuery running =
          query
              .writeStream()
              .format("delta")
              .outputMode("append")
              .option("checkpointLocation", job.get("checkpoint").asText())
              .trigger(Trigger.AvailableNow())
              .start(job.get("table").asText());
      running.awaitTermination();
      long end = System.currentTimeMillis();
      long cpuMs =
          ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                  .getProcessCpuTime()
              / 1_000_000;
      long peakRssKb = peakRssKb();

      long inputRows = 0;
      long firstBatchStart = Long.MAX_VALUE;
      int batches = 0;
      ArrayNode lines = JSON.createArrayNode();
      for (StreamingQueryProgress p : running.recentProgress()) {
        inputRows += p.numInputRows();
        batches++;
        firstBatchStart = Math.min(firstBatchStart, Instant.parse(p.timestamp()).toEpochMilli());
        lines.add(
            String.format(
                "batch %d: %,d rows in, %,d ms %s",
                p.batchId(),
                p.numInputRows(),
                p.durationMs().get("triggerExecution"),
                p.durationMs()));
      }
      long outputRows = spark.read().format("delta").load(job.get("table").asText()).count();
      ObjectNode result = JSON.createObjectNode();
      result.put("jvmStartEpochMs", jvmStart);
      result.put("firstBatchStartEpochMs", firstBatchStart);
      result.put("endEpochMs", end);
      result.put("batches", batches);
      result.put("inputRows", inputRows);
      result.put("outputRows", outputRows);
      result.put("cpuMs", cpuMs);
      result.put("peakRssKb", peakRssKb);
      result.set("batchLines", lines);
      Files.writeString(Path.of(job.get("result").asText()), JSON.writeValueAsString(result));
    } finally {
      spark.stop();
    }
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
