package dev.tributary.service.pipeline;

import dev.tributary.checkpoint.Checkpoint;
import dev.tributary.checkpoint.CheckpointLease;
import dev.tributary.checkpoint.CommitEntry;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.config.Assignment;
import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.TriggerSpec;
import dev.tributary.config.WatermarkSpec;
import dev.tributary.service.engine.BatchBody;
import dev.tributary.service.engine.CompositeSource;
import dev.tributary.service.engine.DeltaTableSink;
import dev.tributary.service.engine.GroupMember;
import dev.tributary.service.engine.ProgressLog;
import dev.tributary.service.engine.RecordProcessor;
import dev.tributary.service.engine.Source;
import dev.tributary.service.engine.TableLostException;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.engine.TriggerLoop;
import dev.tributary.service.engine.WriteAheadLog;
import dev.tributary.service.exchange.ExchangeProgress;
import dev.tributary.service.exchange.ExchangeTopic;
import dev.tributary.service.exchange.GroupStatefulRounds;
import dev.tributary.service.exchange.KeyedRounds;
import dev.tributary.service.exchange.KeyedSource;
import dev.tributary.service.exchange.PartitionPipelines;
import dev.tributary.service.sink.Sinks;
import dev.tributary.service.source.DeltaTableSource;
import dev.tributary.service.source.KafkaSource;
import dev.tributary.service.source.KeyedByCheck;
import dev.tributary.service.stateful.ExchangeFront;
import dev.tributary.service.stateful.ExchangeRecords;
import dev.tributary.service.stateful.StatefulPlan;
import dev.tributary.service.stateful.StatefulProcessor;
import dev.tributary.service.stateful.TableRowsInput;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.ObjectStores;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.data.WarmUp;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of a pipeline: its stores, source, tables and engine, opened together and closed
 * together. {@link #run()} blocks until the trigger ends the run or {@link #stop()} is called.
 */
public final class PipelineRun implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PipelineRun.class);
  private final PipelineSpec spec;
  private final TriggerSpec trigger;
  private final List<AutoCloseable> resources;
  private final TriggerLoop engine;
  private final ProgressLog progress;
  private final List<GroupMember> groups;

  private PipelineRun(
      PipelineSpec spec,
      TriggerSpec trigger,
      List<AutoCloseable> resources,
      TriggerLoop engine,
      ProgressLog progress,
      List<GroupMember> groups) {
    this.groups = List.copyOf(groups);
    this.spec = spec;
    this.trigger = trigger;
    this.resources = resources;
    this.engine = engine;
    this.progress = progress;
  }

  /**
   * Opens everything the pipeline needs: checkpoint (refusing a mismatched one), tables (creating
   * them on first use) and the source (Kafka, or the Delta source table).
   *
   * @param trigger the trigger to run with (the declared one, or an override from the command line)
   */
  public static PipelineRun open(
      CompiledPipeline compiled, TriggerSpec trigger, ProgressLog progress) throws IOException {
    return open(compiled, trigger, progress, RunBounds.NONE);
  }

  /**
   * Like {@link #open(CompiledPipeline, TriggerSpec, ProgressLog)}, for a run that {@code bounds}
   * bends (a backfill): its source, sink and watermark policy pass through them.
   */
  public static PipelineRun open(
      CompiledPipeline compiled, TriggerSpec trigger, ProgressLog progress, RunBounds bounds)
      throws IOException {
    PipelineSpec spec = compiled.spec();
    // While the run connects and reads its first batch, not when it writes its first file.
    spec.deltaSink()
        .ifPresent(d -> WarmUp.startInBackground(PipelineFactory.writeOptions(d).codec()));
    List<AutoCloseable> resources = new ArrayList<>();
    Optional<EarlyKafkaSource> early = EarlyKafkaSource.start(spec, trigger);
    try {
      // First the sources' schemas: a Delta source's table's is the input schema, and the sink's
      // ends with the dimension tables' columns, known once they are read.
      Source source = null;
      CompiledPipeline bound = compiled;
      Optional<TableRowsInput> mainTable = Optional.empty();
      if (spec.deltaSource().isPresent()) {
        DeltaSourceSpec delta = spec.deltaSource().get();
        ObjectStore sourceStore =
            ObjectStores.open(
                delta.path(), PipelineFactory.s3Settings(delta.storage().or(spec::storage)));
        resources.add(sourceStore);
        DeltaTableSource table =
            PipelineFactory.deltaSource(spec, sourceStore, trigger instanceof TriggerSpec.Once);
        resources.add(0, table);
        source = table;
        mainTable = Optional.of(new TableRowsInput(delta.path(), table.schema()));
        if (spec.streamJoin().isEmpty()) {
          bound = PipelineFactory.bindSource(compiled, delta.path(), table.schema());
        }
      }
      // a stream-stream join's second input when it is a table: read in the same batches
      Optional<DeltaTableSource> secondTable = Optional.empty();
      if (StreamJoinInputs.secondIsTable(spec)) {
        DeltaSourceSpec delta = StreamJoinInputs.secondTableSpec(spec);
        ObjectStore secondStore =
            ObjectStores.open(
                delta.path(), PipelineFactory.s3Settings(delta.storage().or(spec::storage)));
        resources.add(secondStore);
        secondTable =
            Optional.of(
                StreamJoinInputs.secondTable(
                    spec, secondStore, trigger instanceof TriggerSpec.Once));
        resources.add(0, secondTable.get());
      }
      if (StreamJoinInputs.bindsAtStart(spec)) {
        bound =
            StreamJoinInputs.bind(
                spec,
                mainTable,
                secondTable.map(
                    t ->
                        new TableRowsInput(
                            StreamJoinInputs.secondTableSpec(spec).path(), t.schema())));
      }
      CompiledPipeline pipeline = PipelineFactory.bindJoins(bound);
      pipeline.processor().joins().ifPresent(resources::add);
      StartupTrace.mark("run: sources' schemas bound");
      ObjectStore checkpointStore = PipelineFactory.store(spec, spec.checkpoint());
      resources.add(checkpointStore);
      boolean group = spec.kafkaSource().map(k -> k.assignment() == Assignment.GROUP).orElse(false);
      Optional<CheckpointLease> lease = Optional.empty();
      if (!group) {
        // One owner per checkpoint, taken before anything is written to it; released at close,
        // before the store closes (docs/DESIGN.md, "One owner per checkpoint").
        lease = Optional.of(CheckpointLeases.acquire(spec, checkpointStore));
        resources.add(resources.indexOf(checkpointStore), lease.get());
      }
      StartupTrace.mark("run: checkpoint lease taken");
      Checkpoint opened = PipelineFactory.checkpoint(spec, checkpointStore);
      Checkpoint checkpoint = lease.map(opened::fencedBy).orElse(opened);
      StartupTrace.mark("run: checkpoint opened");
      // a Delta sink table's store; the other sinks connect themselves (Sinks.open)
      Optional<ObjectStore> sinkStore = Optional.empty();
      if (spec.deltaSink().isPresent()) {
        // a routed sink's store is the folder of its tables
        sinkStore = Optional.of(PipelineFactory.store(spec, spec.sink().tablesFolder()));
        resources.add(sinkStore.get());
      }
      ObjectStore quarantineStore = PipelineFactory.store(spec, spec.quarantine().path());
      resources.add(quarantineStore);
      Optional<ObjectStore> lateStore = Optional.empty();
      if (spec.lateEvents().isPresent()) {
        lateStore = Optional.of(PipelineFactory.store(spec, spec.lateEvents().get().path()));
        resources.add(lateStore.get());
      }
      if (!group) {
        // Never create, empty, a table this checkpoint committed batches to (docs/DESIGN.md, "A
        // table that lost committed batches"): the engine would then go on after them.
        refuseMissingTables(spec, checkpoint, sinkStore, quarantineStore, lateStore);
      }
      TableTxns txns = new TableTxns(spec.id(), checkpoint.metadata().checkpointId());
      TableSink sink = bounds.sink(Sinks.open(pipeline, txns, sinkStore, trigger));
      StartupTrace.mark("run: sink opened");
      if (sink instanceof AutoCloseable closeable) {
        resources.add(0, closeable); // a producer, a database connection
      }
      TableSink quarantine =
          StreamJoinInputs.bindsAtStart(spec)
              ? StreamJoinInputs.quarantine(spec, quarantineStore)
              : PipelineFactory.quarantine(spec, quarantineStore);
      Optional<TableSink> late = Optional.empty();
      if (lateStore.isPresent()) {
        late = Optional.of(PipelineFactory.lateEvents(pipeline, lateStore.get()));
      }
      StartupTrace.mark("run: quarantine and late-events tables opened");
      List<TableSink> tables = new ArrayList<>(sink.parts());
      tables.add(quarantine);
      late.ifPresent(tables::add);
      // starting-offsets: table is Kafka's; a Delta source starts at its starting-version
      Map<SourcePartition, Long> startAfter = Map.of();
      if (group) {
        NewCheckpointStart.checkGroupStart(
            spec.id(), spec.kafkaSource().get().startingOffsets(), checkpoint, txns, tables);
      } else if (spec.kafkaSource().isPresent()) {
        startAfter =
            NewCheckpointStart.startAfter(
                spec.id(),
                spec.kafkaSource().get().startingOffsets(),
                checkpoint,
                txns,
                // starting-offsets: table continues after the Delta sink (validate requires one)
                sink.parts().stream()
                    .filter(DeltaTableSink.class::isInstance)
                    .findFirst()
                    .orElse(sink),
                tables);
      }
      List<GroupMember> groups = new ArrayList<>();
      if (group && pipeline.stateful().isPresent()) {
        TriggerLoop engine =
            groupStateful(
                pipeline,
                trigger,
                checkpointStore,
                sink,
                quarantine,
                late,
                txns,
                progress,
                resources,
                groups);
        return new PipelineRun(spec, trigger, resources, engine, progress, groups);
      }
      StartupTrace.mark("run: start offsets decided");
      RecordProcessor processor =
          PipelineFactory.runProcessor(pipeline, checkpointStore, stateDir(spec), sink);
      resources.add(0, processor);
      StartupTrace.mark("run: processor opened");
      if (source == null) {
        Optional<KafkaSource> taken = early.flatMap(EarlyKafkaSource::take);
        early = Optional.empty(); // taken (a resource from here on), or closed by its own thread
        KafkaSource kafka =
            taken.isPresent()
                ? taken.get()
                : new KafkaSource(
                    PipelineFactory.sourceSettings(spec, trigger instanceof TriggerSpec.Once));
        resources.add(0, kafka);
        kafka.groupMember().ifPresent(groups::add);
        source = kafka;
        StartupTrace.mark("run: Kafka source created");
      }
      if (pipeline.streamJoin().isPresent()) {
        // the join's second input, read in the same batches after the main one
        Source second;
        if (secondTable.isPresent()) {
          second = secondTable.get(); // a resource already
        } else {
          KafkaSource kafka =
              new KafkaSource(
                  PipelineFactory.streamJoinSourceSettings(
                      spec, trigger instanceof TriggerSpec.Once));
          resources.add(0, kafka);
          second = kafka;
        }
        source = new CompositeSource(source, second);
      }
      bounds.bound(source);
      BatchBody.Settings batches =
          new BatchBody.Settings(
              spec.id(), source, processor, progress, Clock.systemUTC(), spec.quarantineLimit());
      WriteAheadLog.Tables logged = new WriteAheadLog.Tables(sink, quarantine, late);
      TriggerLoop engine;
      if (group) {
        engine = TriggerLoop.Batches.tablePositions(batches, txns, sink, quarantine);
      } else if (trigger instanceof TriggerSpec.Continuous continuous) {
        engine =
            TriggerLoop.Batches.continuous(
                batches, checkpoint, txns, startAfter, logged, continuous.interval());
      } else {
        engine =
            TriggerLoop.Batches.writeAheadLog(
                batches, checkpoint, txns, startAfter, logged, bounds.watermarks(source));
      }
      StartupTrace.mark("run: opened");
      return new PipelineRun(spec, trigger, resources, engine, progress, groups);
    } catch (IOException | RuntimeException e) {
      early.ifPresent(EarlyKafkaSource::closeWhenCreated);
      closeAll(resources);
      throw e;
    }
  }

  /**
   * The two stages of a stateful pipeline in consumer-group mode (docs/DESIGN.md, "Stateful
   * pipelines in group mode"): the exchange writer over the source topics and the sub-pipelines of
   * the repartition partitions this instance owns; creates the repartition topic on first start.
   */
  private static TriggerLoop groupStateful(
      CompiledPipeline pipeline,
      TriggerSpec trigger,
      ObjectStore checkpointStore,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> late,
      TableTxns txns,
      ProgressLog progress,
      List<AutoCloseable> resources,
      List<GroupMember> groups)
      throws IOException {
    PipelineSpec spec = pipeline.spec();
    var kafkaSpec = spec.kafkaSource().orElseThrow();
    StatefulPlan plan = pipeline.stateful().orElseThrow();
    KeyedSource keyed = KeyedSource.of(spec, Optional.of(plan.inputSchema()));
    if (keyed.skipsExchange()) {
      log.info("Pipeline {}: repartition: {}", spec.id(), keyed.describe());
      return keyedStateful(
          pipeline,
          keyed,
          trigger,
          checkpointStore,
          sink,
          quarantine,
          late,
          progress,
          resources,
          groups);
    }
    keyed.reason().ifPresent(why -> log.warn("Pipeline {}: {}", spec.id(), why));
    KafkaSource sourceTopics =
        new KafkaSource(PipelineFactory.sourceSettings(spec, trigger instanceof TriggerSpec.Once));
    resources.add(0, sourceTopics);
    sourceTopics.groupMember().ifPresent(groups::add);
    int partitions;
    Properties admin = new Properties();
    admin.putAll(kafkaSpec.properties()); // the security settings (SASL, TLS) the broker needs
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaSpec.bootstrapServers());
    admin.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-" + spec.id() + "-admin");
    try (Admin client = Admin.create(admin)) {
      partitions =
          ExchangeTopic.ensure(
              client,
              ExchangeRecords.topic(spec.id()),
              ExchangeTopic.partitionsFor(sourceTopics.partitions()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while creating the repartition topic");
    }
    ExchangeRecords records = new ExchangeRecords(plan, partitions);
    ExchangeFront front =
        new ExchangeFront(spec.id(), pipeline.processor(), plan, late.isPresent());
    resources.add(0, front);
    var producerSettings = sourceTopics.settings();
    ExchangeProgress stage1Progress =
        new ExchangeProgress(
            sourceTopics,
            front,
            records,
            () ->
                new KafkaProducer<byte[], byte[]>(
                    ExchangeProgress.producerConfig(producerSettings)),
            quarantine,
            txns);
    resources.add(0, stage1Progress); // closes the producer
    TriggerLoop.Batches stage1 =
        new TriggerLoop.Batches(
            stage1Progress,
            new BatchBody(
                new BatchBody.Settings(
                    spec.id(),
                    sourceTopics,
                    front,
                    progress,
                    Clock.systemUTC(),
                    spec.quarantineLimit())));
    KafkaSource repartition =
        new KafkaSource(
            PartitionPipelines.repartitionSettings(
                spec.id(),
                kafkaSpec.bootstrapServers(),
                kafkaSpec.properties(),
                producerSettings.timeouts(),
                Assignment.GROUP));
    repartition.groupMember().ifPresent(groups::add);
    PartitionPipelines stage2;
    try {
      stage2 =
          new PartitionPipelines(
              new PartitionPipelines.Settings(
                  spec.id(),
                  spec.checkpointIdentity(),
                  SchemaWidening.judge(spec),
                  groupStateDir(spec),
                  spec.quarantineLimit(),
                  spec.watermark().flatMap(WatermarkSpec::idleTimeout)),
              repartition,
              checkpointStore,
              PartitionPipelines.statefulProcessors(spec.id(), plan, records),
              sink,
              quarantine,
              late,
              progress,
              Clock.systemUTC());
    } catch (RuntimeException e) {
      repartition.close();
      throw e;
    }
    resources.add(0, stage2); // closes the repartition source
    return new TriggerLoop(
        spec.id(),
        new GroupStatefulRounds(
            spec.id(), sourceTopics, stage1Progress, stage1, repartition, stage2),
        TriggerLoop.OnMoved.DROP_BATCH,
        Clock.systemUTC(),
        progress.activity());
  }

  /**
   * A stateful pipeline in consumer-group mode whose source is keyed by its state's keys
   * (docs/DESIGN.md, "Keyed-by sources: no exchange"): one sub-pipeline per source partition this
   * instance owns, reading it directly and checking every record's key.
   */
  private static TriggerLoop keyedStateful(
      CompiledPipeline pipeline,
      KeyedSource keyed,
      TriggerSpec trigger,
      ObjectStore checkpointStore,
      TableSink sink,
      TableSink quarantine,
      Optional<TableSink> late,
      ProgressLog progress,
      List<AutoCloseable> resources,
      List<GroupMember> groups) {
    PipelineSpec spec = pipeline.spec();
    StatefulPlan plan = pipeline.stateful().orElseThrow();
    KafkaSource source =
        new KafkaSource(PipelineFactory.sourceSettings(spec, trigger instanceof TriggerSpec.Once));
    PartitionPipelines partitions;
    try {
      source.groupMember().ifPresent(groups::add);
      KeyedByCheck check =
          new KeyedByCheck(keyed.keyedBy(), plan.inputSchema(), source.partitions().size());
      partitions =
          PartitionPipelines.overSourceTopic(
              new PartitionPipelines.Settings(
                  spec.id(),
                  spec.checkpointIdentity(),
                  SchemaWidening.judge(spec),
                  groupStateDir(spec),
                  spec.quarantineLimit()),
              source,
              checkpointStore,
              (n, store, dir) ->
                  StatefulProcessor.checked(
                      PartitionPipelines.subPipelineId(spec.id(), n),
                      pipeline.processor(),
                      plan,
                      check,
                      store,
                      dir),
              sink,
              quarantine,
              late,
              progress,
              Clock.systemUTC());
    } catch (RuntimeException e) {
      source.close();
      throw e;
    }
    resources.add(0, partitions); // closes the source
    return new TriggerLoop(
        spec.id(),
        new KeyedRounds(spec.id(), source, partitions),
        TriggerLoop.OnMoved.DROP_BATCH,
        Clock.systemUTC(),
        progress.activity());
  }

  /**
   * A checkpoint with a committed batch needs its tables: a missing one was deleted, and creating
   * it anew would let the pipeline go on after batches whose rows are gone.
   *
   * @throws TableLostException naming the first missing table
   */
  private static void refuseMissingTables(
      PipelineSpec spec,
      Checkpoint checkpoint,
      Optional<ObjectStore> sink,
      ObjectStore quarantine,
      Optional<ObjectStore> late)
      throws IOException {
    Optional<CommitEntry> last = checkpoint.latestCommit();
    if (last.isEmpty()) {
      return;
    }
    Map<String, ObjectStore> tables = new LinkedHashMap<>();
    // a routed sink's tables appear with their routes: which must exist is not known here
    if (sink.isPresent() && spec.sink().route().isEmpty()) {
      // the Delta sink's role is its place among the sinks (WriteAheadLog.sinkRole)
      tables.put(
          WriteAheadLog.sinkRole(spec.sinks().indexOf(spec.deltaSink().orElseThrow())), sink.get());
    }
    tables.put("quarantine", quarantine);
    late.ifPresent(l -> tables.put("late-events", l));
    for (Map.Entry<String, ObjectStore> t : tables.entrySet()) {
      // a table added to the declaration since holds no batch yet: only a marked one must exist
      boolean marked =
          last.get().extras().containsKey("table." + t.getKey())
              || last.get().extras().keySet().stream().noneMatch(k -> k.startsWith("table."));
      if (marked && !DeltaTable.open(t.getValue(), PipelineFactory.tableOptions(spec)).exists()) {
        throw TableLostException.of(
            spec.id(),
            t.getKey(),
            t.getValue().location(),
            last.get().batchId(),
            "it does not exist any more: deleted",
            checkpoint.location(),
            TableLostException.deltaWaysOn(last.get().batchId()));
      }
    }
  }

  /**
   * Where the state stores' local working copies go: {@code tributary.state.dir} (system property)
   * or the temp directory, then {@code tributary-state/<pipeline>}. The copies are rebuilt from the
   * checkpoint on start, so the directory needs no backup.
   */
  private static Path stateDir(PipelineSpec spec) {
    String base = System.getProperty("tributary.state.dir", System.getProperty("java.io.tmpdir"));
    return Path.of(base, "tributary-state", spec.id());
  }

  /**
   * {@link #stateDir} of one process: instances of a group on one host must not share the working
   * copies of a partition that moves between them (the new owner would rebuild the copy the old one
   * still has open, or is deleting). Copies are rebuilt from the checkpoint, so nothing is lost.
   */
  private static Path groupStateDir(PipelineSpec spec) {
    removeCopiesOfEndedProcesses(stateDir(spec));
    // per run, not only per process: two instances in one JVM (tests, a serve reload) must not
    // share either
    return stateDir(spec)
        .resolve("instance-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet());
  }

  private static final AtomicInteger RUNS = new AtomicInteger();

  /**
   * Deletes the {@code instance-<pid>-<run>} working copies of processes that no longer run
   * (killed, or ended without cleaning up): they would otherwise pile up on a host that restarts
   * instances. Best effort: a copy that cannot be deleted is left for the next start.
   */
  private static void removeCopiesOfEndedProcesses(Path dir) {
    try (var children = Files.list(dir)) {
      for (Path child : children.toList()) {
        String name = child.getFileName().toString();
        if (!name.startsWith("instance-")) {
          continue;
        }
        String id = name.substring("instance-".length());
        long pid;
        try {
          pid = Long.parseLong(id.contains("-") ? id.substring(0, id.indexOf('-')) : id);
        } catch (NumberFormatException notOurs) {
          continue;
        }
        if (pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).isEmpty()) {
          deleteQuietly(child);
        }
      }
    } catch (IOException | RuntimeException e) {
      // no directory yet, or not listable: nothing to clean
    }
  }

  private static void deleteQuietly(Path tree) {
    try (var paths = Files.walk(tree)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException | RuntimeException e) {
      // left for the next start
    }
  }

  public PipelineSpec spec() {
    return spec;
  }

  public ProgressLog progress() {
    return progress;
  }

  /**
   * This instance's memberships of consumer groups that share the pipeline's partitions (group
   * assignment; empty in exclusive assignment), for the REST API and the rebalance metrics.
   */
  public List<GroupMember> groups() {
    return groups;
  }

  /** Runs batches until the trigger ends the run or {@link #stop()} is called. */
  public void run() throws Exception {
    StartupTrace.mark("run: engine starts");
    engine.run(trigger);
  }

  /** Lets the batch in progress finish, then ends {@link #run()}. */
  public void stop() {
    engine.stop();
  }

  /** Whether {@link #stop()} was called: a run that returned then may not have read everything. */
  public boolean stopRequested() {
    return engine.stopRequested();
  }

  @Override
  public void close() {
    closeAll(resources);
  }

  private static void closeAll(List<AutoCloseable> resources) {
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception ignored) {
        // closing is best effort; the run's outcome was decided before
      }
    }
  }
}
