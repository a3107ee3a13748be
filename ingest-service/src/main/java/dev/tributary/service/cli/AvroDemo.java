package dev.tributary.service.cli;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.service.demo.AvroEvents;
import dev.tributary.service.demo.EmbeddedBroker;
import dev.tributary.service.demo.LocalSchemaRegistry;
import dev.tributary.service.demo.SampleEvents;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.service.pipeline.PipelineRun;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * {@code tributary demo avro}: the main demo's job ({@code orders-demo}) with Avro values in the
 * Confluent wire format. Starts the embedded broker and a schema registry in this JVM ({@link
 * LocalSchemaRegistry}, on 127.0.0.1: no Docker, no network), registers the demo's Avro schema,
 * produces the same sample events as Avro ({@link AvroEvents}), runs {@code
 * demo/orders-avro-demo.yaml} available-now and prints what happened, as the main demo does.
 */
final class AvroDemo {
  private static final String TOPIC = "demo-orders-avro";
  private final PrintStream out;
  private final DemoCommand demo;

  AvroDemo(PrintStream out, DemoCommand demo) {
    this.out = out;
    this.demo = demo;
  }

  int run(int events, Path dir) throws Exception {
    DemoCommand.prepare(dir);
    out.println("Tributary Avro demo: output in " + dir);
    out.println(
        "1. Starting an embedded Kafka broker (KRaft) and a schema registry (Confluent API)...");
    try (EmbeddedBroker broker = EmbeddedBroker.start(3, TOPIC);
        LocalSchemaRegistry registry = LocalSchemaRegistry.start(0, null, null, null)) {
      int schemaId = registry.register(TOPIC + "-value", "AVRO", AvroEvents.SCHEMA);
      out.println(
          "   registry at "
              + registry.url()
              + ": subject "
              + TOPIC
              + "-value, schema id "
              + schemaId);
      SampleEvents.Batch sample =
          SampleEvents.generate(events, Instant.parse("2026-11-01T08:00:00Z"), 7);
      List<byte[]> values = AvroEvents.encode(sample, schemaId);
      DemoCommand.produce(broker.bootstrapServers(), TOPIC, values);
      out.printf(
          "2. Produced %,d Avro events to topic %s (3 partitions): %s (JSON on the Avro topic,"
              + " an unknown schema id, a truncated body)%n",
          events, TOPIC, sample.describe());

      // The registry's URL is written into the file: the copy in the demo folder names the registry
      // this run started.
      String yaml =
          DemoCommand.resource("demo/orders-avro-demo.yaml")
              .replace("${REGISTRY_URL}", registry.url());
      Path file = dir.resolve("orders-avro-demo.yaml");
      Files.writeString(file, yaml);
      PipelineSpec spec =
          PipelineParser.parse(
              yaml,
              file.toString(),
              Map.of("KAFKA_BOOTSTRAP", broker.bootstrapServers(), "DEMO_DIR", dir.toString()));
      CompiledPipeline pipeline = PipelineFactory.compile(spec);
      out.println(
          "3. Running pipeline "
              + spec.id()
              + " (format.avro, available-now, at most "
              + spec.kafkaSource().orElseThrow().maxOffsetsPerTrigger().orElse(0)
              + " offsets per batch):");
      ProgressLog progress = new ProgressLog(1000);
      progress.addListener(
          p ->
              out.printf(
                  "   batch %d: %,d records in, %,d rows out, %,d quarantined, %d ms%n",
                  p.batchId(), p.inputRows(), p.outputRows(), p.quarantinedRows(), p.durationMs()));
      try (PipelineRun run = PipelineRun.open(pipeline, new TriggerSpec.AvailableNow(), progress)) {
        run.run();
      }
      // Avro bodies are binary: the quarantine sample shows the header and the first bytes in hex.
      demo.summarize(spec, pipeline.outputSchema(), progress.last(1000), AvroDemo::hex);
      return 0;
    }
  }

  private static String hex(byte[] value) {
    String h = HexFormat.ofDelimiter(" ").formatHex(value, 0, Math.min(value.length, 24));
    return value.length > 24 ? h + " ... (" + value.length + " bytes)" : h;
  }
}
