package dev.tributary.service.testing;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.BatchBody;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.TableContents;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.engine.WatermarkPolicy;
import dev.tributary.service.engine.WriteAheadLog;
import dev.tributary.service.pipeline.CompiledPipeline;
import dev.tributary.service.pipeline.PipelineFactory;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A pipeline whose "disk" is in memory: the checkpoint, sink and quarantine tables live in {@link
 * InMemoryObjectStore}s (real Delta tables and a real checkpoint, only the bytes are in memory), so
 * a test can start a "process" ({@link #open}), let it die anywhere ({@link CrashAt}) and start the
 * next one on what the first left, in milliseconds. The processor is the real one compiled from the
 * declaration; a stateful one keeps its working copies under a directory per process, as separate
 * processes on one host do.
 */
public final class MemoryPipeline {
  private final PipelineSpec spec;
  private final CompiledPipeline compiled;
  private final Path localDir;
  private final AtomicInteger processes = new AtomicInteger();

  /** The checkpoint's store. */
  public final ObjectStore checkpointStore = new InMemoryObjectStore();

  /** The sink table's store. */
  public final ObjectStore sinkStore = new InMemoryObjectStore();

  /** The quarantine table's store. */
  public final ObjectStore quarantineStore = new InMemoryObjectStore();

  private MemoryPipeline(String yaml, Path localDir) {
    this.spec = PipelineParser.parse(yaml, "memory.yaml", Map.of());
    this.compiled = PipelineFactory.compile(spec);
    this.localDir = localDir;
  }

  /**
   * A pipeline of JSON records {@code {"id": long, "v": string}} from topic {@code events}; with
   * {@code stateful}, deduplicated by {@code id}.
   *
   * @param localDir where a stateful processor's working copies go (a test's temp directory)
   */
  public static MemoryPipeline of(boolean stateful, Path localDir) {
    return new MemoryPipeline(
        """
        pipeline: memory
        source: { kafka: { bootstrap-servers: "localhost:1", topics: [events] } }
        format: { json: { schema: { id: long, v: string } } }
        %s
        sink: { delta: { path: /memory/sink } }
        quarantine: { delta: { path: /memory/quarantine } }
        checkpoint: /memory/checkpoint
        """
            .formatted(stateful ? "deduplicate: { keys: [id] }" : ""),
        localDir);
  }

  /**
   * A pipeline of {@code yaml}, whose sink, quarantine and checkpoint live in memory whatever paths
   * it declares.
   *
   * @param localDir where a stateful processor's working copies go (a test's temp directory)
   */
  public static MemoryPipeline declared(String yaml, Path localDir) {
    return new MemoryPipeline(yaml, localDir);
  }

  /** The compiled declaration (its output schema is the sink's). */
  public CompiledPipeline compiled() {
    return compiled;
  }

  /** The pipeline's declaration. */
  public PipelineSpec spec() {
    return spec;
  }

  /**
   * Starts a "process" of the pipeline on {@code source}: opens the checkpoint and tables as a
   * restart would, with a processor of its own.
   */
  public Process open(Source source, Model model) throws IOException {
    return open(source, model, (pipeline, txns) -> PipelineFactory.modeSink(pipeline, sinkStore));
  }

  /** Opens a pipeline's sink for a "process" (a real database table or Kafka topic, say). */
  @FunctionalInterface
  public interface SinkOpener {
    TableSink open(CompiledPipeline pipeline, TableTxns txns) throws IOException;
  }

  /**
   * {@link #open(Source, Model)} writing to the sink {@code sinks} opens instead of the in-memory
   * Delta table: the checkpoint, the quarantine table and the source stay in memory. The sink is
   * closed with the process ({@link Process#close}) if it holds resources.
   */
  public Process open(Source source, Model model, SinkOpener sinks) throws IOException {
    Checkpoint checkpoint = PipelineFactory.checkpoint(spec, checkpointStore);
    TableSink sink =
        sinks.open(compiled, new TableTxns(spec.id(), checkpoint.metadata().checkpointId()));
    TableSink quarantine = PipelineFactory.quarantine(spec, quarantineStore);
    RecordProcessor processor =
        PipelineFactory.runProcessor(
            compiled,
            checkpointStore,
            localDir.resolve("process-" + processes.incrementAndGet()),
            sink);
    ProgressLog progress = new ProgressLog(1000);
    BatchBody.Settings settings =
        new BatchBody.Settings(
            spec.id(), source, processor, progress, Clock.systemUTC(), Optional.empty());
    TableTxns txns = new TableTxns(spec.id(), checkpoint.metadata().checkpointId());
    TriggerLoop loop =
        switch (model) {
          case WRITE_AHEAD_LOG ->
              TriggerLoop.Batches.writeAheadLog(
                  settings,
                  checkpoint,
                  txns,
                  Map.of(),
                  new WriteAheadLog.Tables(sink, quarantine, Optional.empty()),
                  WatermarkPolicy.OWN);
          case TABLE_POSITIONS ->
              TriggerLoop.Batches.tablePositions(settings, txns, sink, quarantine);
          case CONTINUOUS ->
              TriggerLoop.Batches.continuous(
                  settings,
                  checkpoint,
                  txns,
                  Map.of(),
                  new WriteAheadLog.Tables(sink, quarantine, Optional.empty()),
                  CONTINUOUS_INTERVAL);
        };
    return new Process(loop, processor, progress, sink);
  }

  /** Every row of the sink table now. */
  public List<Object[]> sinkRows() throws IOException {
    return TableContents.rows(sinkStore);
  }

  /** Every row of the quarantine table now. */
  public List<Object[]> quarantineRows() throws IOException {
    return TableContents.rows(quarantineStore);
  }

  /** Which progress model a process runs. */
  public enum Model {
    WRITE_AHEAD_LOG,
    TABLE_POSITIONS,
    /** The write-ahead log with batches of the continuous trigger, {@link #CONTINUOUS_INTERVAL}. */
    CONTINUOUS
  }

  /** The interval of {@link Model#CONTINUOUS}: short, the in-memory source waits it when idle. */
  public static final Duration CONTINUOUS_INTERVAL = Duration.ofMillis(20);

  /**
   * One "process" of the pipeline.
   *
   * @param loop its run loop
   * @param processor its processor, whose state a crash leaves open (closing it releases the
   *     working copies' locks, as the operating system does for a killed process)
   * @param progress its batches' progress records
   * @param sink its sink
   */
  public record Process(
      TriggerLoop loop, RecordProcessor processor, ProgressLog progress, TableSink sink)
      implements AutoCloseable {

    /**
     * What the operating system does for a process that ended, killed or not: its processor's files
     * and locks are released, its sink's connections closed.
     */
    @Override
    public void close() throws Exception {
      processor.close();
      if (sink instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }
}
