import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
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
 * {@code cases}: each with {@code name}, {@code input} (a directory of JSON-lines files, one file
 * per Tributary batch, read one per trigger in modification-time order), optional
 * {@code watermark} ({@code column}, {@code delay}), optional {@code dropDuplicates} or
 * {@code dropDuplicatesWithinWatermark} (column names, applied after the watermark), {@code sql}
 * over the view {@code events}, {@code columns} (the output columns, in order), {@code outputMode},
 * {@code table} and {@code checkpoint} (directories). All cases run in one session, one after the
 * other. For each case the judge writes {@code <table>.batches}: the input row count of each
 * micro-batch Spark ran, one per line, so the test can check Spark cut the stream where we did.
 * Any failure exits non-zero with the stack trace on stderr.
 */
public class SparkJudge {
  public static void main(String[] args) throws Exception {
    JsonNode job = new ObjectMapper().readTree(new File(args[0]));
    SparkSession spark = SparkSession.builder()
        .appName("tributary-spark-judge")
        .master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.streaming.numRecentProgressUpdates", "10000")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", job.path("warehouse").asText("spark-warehouse"))
        // Delta's sink writes what Spark's Parquet writer gives it; INT96 timestamps are legacy
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
        .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      for (JsonNode c : job.get("cases")) {
        runCase(spark, job, c);
      }
    } finally {
      spark.stop();
    }
  }

  private static void runCase(SparkSession spark, JsonNode job, JsonNode c) throws Exception {
    String name = c.get("name").asText();
    long started = System.nanoTime();
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
    StreamingQuery query = result.writeStream()
        .format("delta")
        .outputMode(c.get("outputMode").asText())
        .option("checkpointLocation", c.get("checkpoint").asText())
        .trigger(Trigger.AvailableNow())
        .queryName(name)
        .start(c.get("table").asText());
    query.awaitTermination();
    List<String> batches = new ArrayList<>();
    for (StreamingQueryProgress p : query.recentProgress()) {
      batches.add(Long.toString(p.numInputRows()));
    }
    Files.write(Path.of(c.get("table").asText() + ".batches"), batches);
    System.out.printf("case %s: %d micro-batches in %d ms%n", name, batches.size(),
        (System.nanoTime() - started) / 1_000_000);
  }

  private static String[] strings(JsonNode array) {
    String[] out = new String[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).asText();
    }
    return out;
  }
}
