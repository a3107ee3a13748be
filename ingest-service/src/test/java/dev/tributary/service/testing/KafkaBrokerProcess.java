package dev.tributary.service.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real single-node KRaft Kafka broker in its own JVM (the broker jars are on the test classpath
 * through spring-kafka-test), for tests that kill the pipeline process and for benchmarks: unlike
 * the in-process broker it survives the death of the JVM under test... and of the test's children.
 * Storage is formatted with Kafka's StorageTool before the first start. {@link #kill()} and {@link
 * #restart()} stop it like a crash and bring it back on the same data directory and ports, for
 * tests of a broker failure. The broker halts by itself when the test JVM dies ({@link
 * KafkaBrokerLauncher}).
 *
 * <p>Tests that leave the broker running use {@link #shared()}: a start costs a JVM and a KRaft
 * controller (5-6 s on two busy cores, three times that while other builds run), so one broker
 * serves every such test of the JVM. Tests that kill or restart it {@link #start} their own.
 */
public final class KafkaBrokerProcess implements AutoCloseable {
  private static final List<String> JVM =
      List.of("-Xmx512m", "-XX:+UseSerialGC", "-Dlog4j2.level=WARN");
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
  private static KafkaBrokerProcess shared;

  private final Path dir;
  private final int port;
  private int saslPort = -1;
  private final Path config;
  private final Path log;
  private final boolean isShared;
  private volatile Process process;

  private KafkaBrokerProcess(
      Path dir, int port, Path config, Path log, Process process, boolean isShared) {
    this.dir = dir;
    this.port = port;
    this.config = config;
    this.log = log;
    this.process = process;
    this.isShared = isShared;
  }

  /**
   * The broker shared by every test of this JVM that neither kills nor restarts it, started on
   * first use and stopped by a shutdown hook; {@link #close()} on it does nothing. It lives in
   * {@code target/kafka-broker-<pid>}, where its log stays for a look after a failure. Its tests
   * must not meet: each creates uniquely named topics ({@link #newTopic}), and a pipeline in group
   * mode has a pipeline id of its own (its consumer group and exchange topics are named after it).
   */
  public static synchronized KafkaBrokerProcess shared() throws IOException, InterruptedException {
    if (shared == null) {
      Path dir =
          InstanceProcesses.freshWorkDirectory("kafka-broker-" + ProcessHandle.current().pid());
      KafkaBrokerProcess started = start(dir, true /* isShared */);
      Runtime.getRuntime().addShutdownHook(new Thread(started::stopShared, "kafka-broker-stop"));
      shared = started;
    }
    return shared;
  }

  /**
   * Formats storage in {@code dir} and starts a broker of the caller's own, which the caller
   * closes; returns once it accepts connections.
   */
  public static KafkaBrokerProcess start(Path dir) throws IOException, InterruptedException {
    return start(dir, false /* isShared */);
  }

  /**
   * Starts a broker of the caller's own that enforces ACLs (KRaft's {@code StandardAuthorizer}):
   * its PLAINTEXT listener ({@link #bootstrapServers()}) is a super user, for the test to create
   * topics and grant ACLs; a second listener ({@link #saslBootstrapServers()}, SASL/PLAIN) knows
   * the user {@code app} with password {@code app-secret}, who may do only what the test grants.
   */
  public static KafkaBrokerProcess startWithAcls(Path dir)
      throws IOException, InterruptedException {
    int saslPort = ChildJvm.freePorts(1)[0];
    KafkaBrokerProcess broker = start(dir, false /* isShared */, saslPort);
    broker.saslPort = saslPort;
    return broker;
  }

  /** The SASL/PLAIN listener of a broker from {@link #startWithAcls}. */
  public String saslBootstrapServers() {
    if (saslPort < 0) {
      throw new IllegalStateException("not started with ACLs: startWithAcls(dir)");
    }
    return "127.0.0.1:" + saslPort;
  }

  /** Producer/admin properties that log in as {@code app} on {@link #saslBootstrapServers()}. */
  public static Map<String, String> appLogin() {
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "PLAIN",
        "sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"app\""
            + " password=\"app-secret\";");
  }

  private static KafkaBrokerProcess start(Path dir, boolean isShared)
      throws IOException, InterruptedException {
    return start(dir, isShared, -1);
  }

  /**
   * Starts a broker; with {@code saslPort} >= 0, one that enforces ACLs ({@link #startWithAcls}).
   */
  private static KafkaBrokerProcess start(Path dir, boolean isShared, int saslPort)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    int[] ports = ChildJvm.freePorts(2);
    int port = ports[0];
    int controllerPort = ports[1];
    String sasl = saslPort < 0 ? "" : ",SASL_PLAINTEXT://127.0.0.1:" + saslPort;
    List<String> acls =
        saslPort < 0
            ? List.of()
            : List.of(
                "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                // the test's own clients, the broker and the controller talk PLAINTEXT
                "super.users=User:ANONYMOUS",
                "sasl.enabled.mechanisms=PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config="
                    + "org.apache.kafka.common.security.plain.PlainLoginModule required"
                    + " user_app=\"app-secret\";");
    Path config = dir.resolve("server.properties");
    Files.writeString(
        config,
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=1",
            "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
            "listeners=PLAINTEXT://127.0.0.1:"
                + port
                + sasl
                + ",CONTROLLER://127.0.0.1:"
                + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port + sasl,
            "controller.listener.names=CONTROLLER",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
                + (saslPort < 0 ? "" : ",SASL_PLAINTEXT:SASL_PLAINTEXT"),
            String.join("\n", acls),
            "inter.broker.listener.name=PLAINTEXT",
            "log.dirs=" + dir.resolve("data"),
            "num.partitions=1",
            // A single broker: without these, consumer groups and transactions hang silently.
            "offsets.topic.replication.factor=1",
            "transaction.state.log.replication.factor=1",
            "transaction.state.log.min.isr=1",
            "share.coordinator.state.topic.replication.factor=1",
            "share.coordinator.state.topic.min.isr=1",
            "group.initial.rebalance.delay.ms=0",
            "auto.create.topics.enable=false",
            ""));
    Path log = dir.resolve("broker.log");
    Process format =
        ChildJvm.start(
            JVM,
            "kafka.tools.StorageTool",
            List.of("format", "-t", Uuid.randomUuid().toString(), "-c", config.toString()),
            log,
            dir);
    if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
      format.destroyForcibly();
      throw new IllegalStateException(
          "formatting Kafka storage failed; see " + log + ":\n" + ChildJvm.tail(log));
    }
    Process broker = launch(config, log, dir);
    KafkaBrokerProcess started = new KafkaBrokerProcess(dir, port, config, log, broker, isShared);
    started.awaitReady(READY_TIMEOUT, log);
    return started;
  }

  private static Process launch(Path config, Path log, Path dir) throws IOException {
    return ChildJvm.start(
        JVM,
        KafkaBrokerLauncher.class.getName(),
        List.of(Long.toString(ProcessHandle.current().pid()), config.toString()),
        log,
        dir);
  }

  /**
   * Kills the broker with SIGKILL, as a crash would: no shutdown, no flush of its logs.
   *
   * @throws IllegalStateException on the {@link #shared()} broker: other tests use it
   */
  public void kill() throws InterruptedException {
    if (isShared) {
      throw new IllegalStateException(
          "the shared broker serves other tests too: start(dir) a broker of your own to kill it");
    }
    process.destroyForcibly().waitFor();
  }

  /**
   * Starts the broker again after {@link #kill()} (or a crash), on the same data directory, ports
   * and cluster id; returns once it accepts connections. A start that dies early (a port still held
   * by the dead process's sockets) is tried again until the ready timeout.
   */
  public void restart() throws IOException, InterruptedException {
    if (process.isAlive()) {
      throw new IllegalStateException(
          "the broker on port " + port + " is still running; kill() it first");
    }
    Instant deadline = Instant.now().plus(READY_TIMEOUT);
    while (true) {
      process = launch(config, log, dir);
      try {
        awaitReady(Duration.between(Instant.now(), deadline), log);
        return;
      } catch (IllegalStateException exited) {
        if (process.isAlive() || Instant.now().isAfter(deadline)) {
          throw exited;
        }
        Thread.sleep(500); // the dead broker's ports are released by the kernel shortly
      }
    }
  }

  private void awaitReady(Duration timeout, Path log) throws InterruptedException {
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "Kafka broker exited with " + process.exitValue() + ":\n" + ChildJvm.tail(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        Thread.sleep(200);
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException(
        "Kafka broker not ready after " + timeout + ":\n" + ChildJvm.tail(log));
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public Path dir() {
    return dir;
  }

  /**
   * Creates a topic named {@code prefix} and a random suffix with {@code partitions} partitions,
   * waits for their leaders, and returns its name (on the {@link #shared()} broker, a name no other
   * test uses).
   */
  public String newTopic(String prefix, int partitions) throws Exception {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    createTopic(name, partitions);
    return name;
  }

  /** Creates {@code name} with {@code partitions} partitions and waits for their leaders. */
  public void createTopic(String name, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      Topics.createAndAwaitLeaders(admin, name, partitions);
    }
  }

  /** Stops a broker from {@link #start}; on the {@link #shared()} one this does nothing. */
  @Override
  public void close() throws InterruptedException {
    if (!isShared) {
      stop();
    }
  }

  private void stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }

  private void stopShared() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
