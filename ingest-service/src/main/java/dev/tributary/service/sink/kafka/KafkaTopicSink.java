package dev.tributary.service.sink.kafka;

import dev.tributary.config.KafkaSinkSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Secrets;
import dev.tributary.service.engine.BatchTag;
import dev.tributary.service.engine.CrashPoints;
import dev.tributary.service.engine.PartitionMovedException;
import dev.tributary.service.engine.TableSink;
import dev.tributary.service.engine.TableTxns;
import dev.tributary.service.expr.CompiledExpression;
import dev.tributary.service.expr.ExpressionCompiler;
import dev.tributary.service.registry.SchemaRegistryClient;
import dev.tributary.service.sink.AlreadyHeld;
import dev.tributary.service.sink.RowJson;
import dev.tributary.service.sink.SinkRefusedException;
import dev.tributary.table.log.SetTransaction;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka topic as a batch sink (docs/DESIGN.md, "The Kafka sink"): each output row is one record,
 * its value the row as JSON ({@link RowJson}) or, with {@code value: avro}, as Avro in the
 * Confluent wire format ({@link AvroRowEncoder}) under a schema derived from the output columns
 * ({@link AvroRowSchema}) and registered under {@code <topic>-value} at the first batch; its key
 * the value of {@code sink.kafka.key}; its headers (on request) the pipeline, the batch and the
 * source record.
 *
 * <p><b>Exactly once</b> ({@code delivery: exactly-once}): a batch's records are sent in one Kafka
 * transaction that also commits a <em>marker</em> of the batch: the offset {@code batch id + 1} of
 * partition 0 of the sink topic in the consumer group {@link #markerGroup} (through {@code
 * sendOffsetsToTransaction}, so the marker commits if and only if the records do). The producer's
 * {@code transactional.id} is derived from the checkpoint's batch key and the topic ({@link
 * #transactionalId}): a restart's {@code initTransactions} aborts whatever transaction the previous
 * process left open and fences that process if it still runs (a zombie's next send or commit fails
 * with {@code ProducerFencedException}, turned into a {@link PartitionMovedException}). {@link
 * #begin} then reads the marker back ({@link MarkerReader}: a stable fetch, which waits for pending
 * transactional offsets): a batch at or below it is skipped. {@code read_committed} consumers
 * therefore see every record exactly once.
 *
 * <p><b>At least once</b>: no transactions; the commit waits until every record is acknowledged. A
 * batch replayed after a crash is sent again.
 *
 * <p>Not thread-safe beyond what the engine does: one batch at a time, rows possibly from the
 * engine's writer thread.
 */
public final class KafkaTopicSink implements TableSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTopicSink.class);
  private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /** The headers {@code provenance-headers: true} adds. */
  public static final String HEADER_PIPELINE = "tributary-pipeline";

  public static final String HEADER_BATCH = "tributary-batch";
  public static final String HEADER_SOURCE_TOPIC = "tributary-source-topic";
  public static final String HEADER_SOURCE_PARTITION = "tributary-source-partition";
  public static final String HEADER_SOURCE_OFFSET = "tributary-source-offset";

  private final String pipelineId;
  private final KafkaSinkSpec spec;
  private final StructType schema;
  private final String batchAppId;
  private final Optional<CompiledExpression> key;
  private final Map<String, Object> producerConfig;
  private final Admin admin;
  private final int[] provenance;
  private final Optional<AvroValues> avro;
  private final KafkaSinkFailures failures;
  private Producer<byte[], byte[]> producer;
  private MarkerReader markers;

  /**
   * The registry and the schema of Avro values; the schema's id once registered (-1 before).
   * Registration is idempotent, so registering again after a restart yields the same id.
   */
  private static final class AvroValues {
    private final SchemaRegistryClient registry;
    private final String subject;
    private final String schema;
    private int id = -1;

    AvroValues(SchemaRegistryClient registry, String subject, String schema) {
      this.registry = registry;
      this.subject = subject;
      this.schema = schema;
    }

    int id() {
      if (id < 0) {
        id = registry.register(subject, schema);
      }
      return id;
    }
  }

  /**
   * Checks that the topic exists; the producer is made at the first batch.
   *
   * @param schema the output columns, which the key expression was checked against
   * @param txns the checkpoint's batch key: the transactional id and the marker group derive from
   *     it
   * @param lowLatency send each record at once ({@code linger.ms} 0: the continuous trigger) rather
   *     than in small batches
   * @throws SinkRefusedException if the topic does not exist
   * @throws IOException if the brokers cannot be reached
   */
  public KafkaTopicSink(
      String pipelineId, KafkaSinkSpec spec, StructType schema, TableTxns txns, Latency latency)
      throws IOException {
    this(pipelineId, spec, schema, txns, latency, Secrets.NONE);
  }

  /**
   * Checks that the topic exists; the producer is made, and an Avro value schema registered, at the
   * first batch.
   *
   * @param secrets the pipeline's secrets, masked in the registry's messages
   * @throws IllegalArgumentException with {@code value: avro}, if an output column name is not an
   *     Avro name ({@code validate} reports it first)
   */
  public KafkaTopicSink(
      String pipelineId,
      KafkaSinkSpec spec,
      StructType schema,
      TableTxns txns,
      Latency latency,
      Secrets secrets)
      throws IOException {
    this.pipelineId = Objects.requireNonNull(pipelineId, "pipelineId");
    this.spec = Objects.requireNonNull(spec, "spec");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.batchAppId = txns.batchAppId();
    this.failures =
        new KafkaSinkFailures(
            pipelineId, spec, transactionalId(batchAppId, spec), markerGroup(batchAppId, spec));
    this.key = spec.key().map(text -> ExpressionCompiler.compile(text, schema));
    this.avro =
        spec.registry()
            .map(
                registry ->
                    new AvroValues(
                        new SchemaRegistryClient(
                            pipelineId,
                            registry,
                            secrets,
                            SchemaRegistryClient.DEFAULT_RETRY,
                            "sink.kafka.registry"),
                        spec.valueSubject(),
                        AvroRowSchema.of(schema).toString()));
    this.producerConfig =
        producerConfig(spec, pipelineId, transactionalId(batchAppId, spec), latency);
    List<String> meta = PipelineSpec.KAFKA_METADATA_COLUMNS;
    this.provenance =
        new int[] {
          schema.indexOf(meta.get(0)), schema.indexOf(meta.get(1)), schema.indexOf(meta.get(2))
        };
    Map<String, Object> adminConfig = new HashMap<>();
    spec.properties()
        .forEach(
            (k, v) -> {
              if (AdminClientConfig.configNames().contains(k)) {
                adminConfig.put(k, v);
              }
            });
    adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers());
    adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "tributary-" + pipelineId + "-sink-admin");
    this.admin = Admin.create(adminConfig);
    try {
      checkTopic();
    } catch (IOException | RuntimeException e) {
      admin.close(CLOSE_TIMEOUT);
      throw e;
    }
  }

  /** How records are batched on their way out. */
  public enum Latency {
    /** Records of a micro-batch travel in small batches ({@code linger.ms} 5). */
    BATCHED,
    /** Every record is sent at once ({@code linger.ms} 0): the continuous trigger. */
    IMMEDIATE
  }

  /**
   * The producer's {@code transactional.id}: {@code tributary-<pipeline>@<checkpoint id>-<topic>},
   * the same for every run of the checkpoint, so each run fences the previous one.
   */
  public static String transactionalId(String batchAppId, KafkaSinkSpec spec) {
    return "tributary-" + batchAppId + "-" + spec.topic();
  }

  /**
   * The consumer group whose committed offset of partition 0 of the sink topic marks the last batch
   * the topic holds ({@code batch id + 1}): {@code tributary-<pipeline>@<checkpoint
   * id>-sink-<topic>}. No consumer ever joins it.
   */
  public static String markerGroup(String batchAppId, KafkaSinkSpec spec) {
    return "tributary-" + batchAppId + "-sink-" + spec.topic();
  }

  static Map<String, Object> producerConfig(
      KafkaSinkSpec spec, String pipelineId, String transactionalId, Latency latency) {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.LINGER_MS_CONFIG, latency == Latency.IMMEDIATE ? 0 : 5);
    // longer than a batch takes: a transaction that times out is aborted by the coordinator and
    // the batch fails (then replays); a killed process's open transaction is aborted by the next
    // run's initTransactions at once, whatever this says
    config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
    config.putAll(spec.properties());
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, spec.bootstrapServers());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    if (spec.delivery() == KafkaSinkSpec.Delivery.EXACTLY_ONCE) {
      config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    } else {
      config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
    }
    config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "tributary-" + pipelineId + "-sink");
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return config;
  }

  @Override
  public String location() {
    return spec.location();
  }

  private void checkTopic() throws IOException {
    try {
      admin
          .describeTopics(List.of(spec.topic()))
          .allTopicNames()
          .get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new SinkRefusedException(KafkaSinkMessages.missingTopic(pipelineId, spec));
      }
      throwIfRefused(e.getCause());
      throw new IOException(KafkaSinkMessages.unreachable(pipelineId, spec, e.getCause()), e);
    } catch (TimeoutException e) {
      throw new IOException(KafkaSinkMessages.unreachable(pipelineId, spec, e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while describing " + spec.topic());
    }
  }

  /**
   * The pipeline's other checkpoints that wrote this topic exactly once: the marker groups of the
   * same pipeline and topic under another checkpoint's batch key, each with its last batch, so that
   * a new checkpoint does not silently send the same input again. The topic records no source
   * positions ({@code starting-offsets: table} needs a Delta sink). An at-least-once sink keeps no
   * markers and cannot tell.
   */
  @Override
  public TableTxns.TableHistory history(TableTxns txns) throws IOException {
    if (!exactlyOnce()) {
      return new TableTxns.TableHistory(location(), -1, List.of(), Map.of());
    }
    String prefix = "tributary-" + txns.pipelineId();
    String suffix = "-sink-" + spec.topic();
    List<SetTransaction> others = new ArrayList<>();
    try {
      for (ConsumerGroupListing listing :
          admin.listConsumerGroups().all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        String group = listing.groupId();
        if (!group.startsWith(prefix) || !group.endsWith(suffix)) {
          continue;
        }
        // the batch key between: the pipeline alone (old checkpoints) or pipeline@checkpoint
        String appId = group.substring("tributary-".length(), group.length() - suffix.length());
        boolean samePipeline =
            appId.equals(txns.pipelineId()) || appId.startsWith(txns.pipelineId() + "@");
        if (samePipeline && !appId.equals(batchAppId)) {
          long held = heldBatch(group);
          if (held >= 0) {
            others.add(new SetTransaction(appId, held, null));
          }
        }
      }
    } catch (ExecutionException | TimeoutException e) {
      throwIfRefused(e.getCause());
      throw new IOException(
          KafkaSinkMessages.markerUnreadable(
              pipelineId, spec, prefix + "…" + suffix, e.getCause() == null ? e : e.getCause()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException(
          "interrupted while listing the marker groups of " + spec.topic());
    }
    return new TableTxns.TableHistory(location(), -1, others, Map.of());
  }

  /** The last batch the topic holds by this checkpoint's marker, or -1. */
  long heldBatch() throws IOException {
    if (markers == null) {
      markers = markerReader(markerGroup(batchAppId, spec));
    }
    return heldBatch(markers, markerGroup(batchAppId, spec));
  }

  /** The last batch the topic holds by the marker of another checkpoint's {@code group}, or -1. */
  private long heldBatch(String group) throws IOException {
    try (MarkerReader reader = markerReader(group)) {
      return heldBatch(reader, group);
    }
  }

  private MarkerReader markerReader(String group) {
    return new MarkerReader(
        spec.bootstrapServers(),
        spec.properties(),
        group,
        "tributary-" + pipelineId + "-sink-marker",
        new TopicPartition(spec.topic(), 0),
        ADMIN_TIMEOUT);
  }

  private long heldBatch(MarkerReader reader, String group) throws IOException {
    try {
      return reader.heldBatch();
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading the marker of " + spec.topic());
    } catch (RuntimeException e) {
      throwIfRefused(e);
      throw new IOException(KafkaSinkMessages.markerUnreadable(pipelineId, spec, group, e), e);
    }
  }

  private boolean exactlyOnce() {
    return spec.delivery() == KafkaSinkSpec.Delivery.EXACTLY_ONCE;
  }

  /**
   * The producer, made at first use; a transactional one is initialised (fencing the last run's).
   */
  private Producer<byte[], byte[]> producer() {
    if (producer == null) {
      Producer<byte[], byte[]> created = new KafkaProducer<>(producerConfig);
      if (exactlyOnce()) {
        try {
          created.initTransactions();
        } catch (RuntimeException e) {
          created.close(CLOSE_TIMEOUT);
          throw translate(e, -1);
        }
      }
      producer = created;
    }
    return producer;
  }

  /**
   * {@inheritDoc}
   *
   * <p>With {@code value: avro}, the value schema is registered first (once per sink: the registry
   * answers again with the same id).
   *
   * @throws dev.tributary.service.registry.SchemaRegistryException the registry refused the schema
   *     (incompatible with the subject's versions): permanent
   * @throws dev.tributary.service.registry.SchemaRegistryUnavailableException the registry did not
   *     answer: transient, the batch is tried again
   */
  @Override
  public BatchWriter begin(BatchTag tag) throws IOException {
    if (avro.isPresent()) {
      avro.get().id();
    }
    if (!exactlyOnce()) {
      return new Writer(tag, producer());
    }
    Producer<byte[], byte[]> p = producer(); // first: aborts what a previous run left open
    long held = heldBatch();
    if (held >= tag.batchId()) {
      return new AlreadyHeld();
    }
    try {
      p.beginTransaction();
    } catch (RuntimeException e) {
      discardProducer();
      throw translate(e, tag.batchId());
    }
    return new Writer(tag, p);
  }

  /** A Kafka failure as {@link KafkaSinkFailures} translates it; other failures as they are. */
  private RuntimeException translate(RuntimeException e, long batch) {
    return failures.translateOrKeep(e, batch);
  }

  /**
   * The translation of an admin call's failure when it is an authorization refusal (permanent), to
   * be thrown instead of the transient {@code IOException} the caller would make.
   */
  private void throwIfRefused(Throwable cause) {
    RuntimeException translated = failures.translate(cause, -1);
    if (translated != null) {
      throw translated;
    }
  }

  /** Closes the producer (an open transaction is aborted by the next run's initTransactions). */
  private void discardProducer() {
    if (producer != null) {
      try {
        producer.close(CLOSE_TIMEOUT);
      } catch (RuntimeException e) {
        LOG.debug("Pipeline {}: closing the sink producer: {}", pipelineId, e.toString());
      }
      producer = null;
    }
  }

  @Override
  public void close() {
    discardProducer();
    if (markers != null) {
      markers.close();
    }
    admin.close(CLOSE_TIMEOUT);
  }

  /** One batch: records sent as rows come, committed with the marker (or flushed). */
  private final class Writer implements BatchWriter {
    private final BatchTag tag;
    private final Producer<byte[], byte[]> out;
    private final RowJson json = new RowJson(schema);
    private final AvroRowEncoder avroValue =
        avro.map(a -> new AvroRowEncoder(schema, a.id())).orElse(null);
    private final SendErrors errors = new SendErrors();
    private final byte[] batchHeader;
    private long rows;
    private boolean done;

    Writer(BatchTag tag, Producer<byte[], byte[]> out) {
      this.tag = tag;
      this.out = out;
      this.batchHeader = Long.toString(tag.batchId()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) throws IOException {
      errors.throwIfFailed(tag.batchId());
      RecordHeaders headers = null;
      if (spec.provenanceHeaders()) {
        headers = new RecordHeaders();
        headers.add(HEADER_PIPELINE, pipelineId.getBytes(StandardCharsets.UTF_8));
        headers.add(HEADER_BATCH, batchHeader);
        addSource(headers, HEADER_SOURCE_TOPIC, row, provenance[0]);
        addSource(headers, HEADER_SOURCE_PARTITION, row, provenance[1]);
        addSource(headers, HEADER_SOURCE_OFFSET, row, provenance[2]);
      }
      ProducerRecord<byte[], byte[]> record =
          new ProducerRecord<>(
              spec.topic(),
              null,
              keyOf(row),
              avroValue == null ? json.encode(row) : avroValue.encode(row),
              headers);
      try {
        out.send(record, errors);
      } catch (RuntimeException e) {
        throw translate(e, tag.batchId());
      }
      rows++;
    }

    private byte[] keyOf(Object[] row) {
      if (key.isEmpty()) {
        return null;
      }
      Object value = key.get().eval(row);
      if (value == null) {
        return null;
      }
      String text =
          key.get().type() == PrimitiveType.STRING
              ? (String) value
              : RowJson.text(key.get().type(), value);
      return text.getBytes(StandardCharsets.UTF_8);
    }

    private void addSource(RecordHeaders headers, String name, Object[] row, int index) {
      if (index >= 0 && row[index] != null) {
        headers.add(name, row[index].toString().getBytes(StandardCharsets.UTF_8));
      }
    }

    @Override
    public long rows() {
      return rows;
    }

    /**
     * Exactly once: commits the records with the batch's marker. At least once: waits until every
     * record is acknowledged.
     *
     * @return -1: a topic has no table version
     * @throws PartitionMovedException if another run took the transactional id over
     */
    @Override
    public long commit(Map<String, String> commitInfo) throws IOException {
      done = true;
      if (!exactlyOnce()) {
        try {
          out.flush();
        } catch (RuntimeException e) {
          throw translate(e, tag.batchId());
        }
        errors.throwIfFailed(tag.batchId());
        return -1;
      }
      String group = markerGroup(batchAppId, spec);
      Map<TopicPartition, OffsetAndMetadata> marker =
          Map.of(
              new TopicPartition(spec.topic(), 0),
              new OffsetAndMetadata(tag.batchId() + 1, "tributary batch " + tag.batchId()));
      try {
        out.sendOffsetsToTransaction(marker, new ConsumerGroupMetadata(group));
        // the records and the marker are in the open transaction, not yet committed
        CrashPoints.reached(CrashPoints.AFTER_DATA_FILES);
        out.commitTransaction();
      } catch (RuntimeException e) {
        errors.addTo(e);
        // a producer in doubt (fenced, a commit that timed out) cannot go on: the next batch makes
        // a new one, whose initTransactions settles the transaction
        discardProducer();
        throw translate(e, tag.batchId());
      }
      return -1;
    }

    /** An uncommitted transaction is aborted; a producer that cannot abort is replaced. */
    @Override
    public void close() {
      if (done || !exactlyOnce()) {
        return;
      }
      done = true;
      try {
        out.abortTransaction();
      } catch (RuntimeException e) {
        discardProducer();
      }
    }
  }

  /** The first error a send reported. */
  private final class SendErrors implements Callback {
    private volatile Exception first;

    @Override
    public void onCompletion(RecordMetadata metadata, Exception error) {
      if (error != null && first == null) {
        first = error;
      }
    }

    void throwIfFailed(long batch) throws IOException {
      Exception e = first;
      if (e != null) {
        if (e instanceof RuntimeException r) {
          RuntimeException translated = translate(r, batch);
          if (translated != r) {
            throw translated;
          }
        }
        throw new IOException(KafkaSinkMessages.sendFailed(pipelineId, spec, batch, e), e);
      }
    }

    void addTo(Throwable failure) {
      Exception e = first;
      if (e != null && e != failure) {
        failure.addSuppressed(e);
      }
    }
  }
}
