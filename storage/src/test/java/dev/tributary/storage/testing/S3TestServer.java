package dev.tributary.storage.testing;

import dev.tributary.storage.S3Settings;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 API server for tests: S3Proxy, run from its self-contained jar as a child JVM, storing
 * objects on a temporary directory, on a free port of 127.0.0.1, with static credentials. It
 * honours conditional writes ({@code If-None-Match: *} answered with 412), multipart uploads,
 * ranged reads and ListObjectsV2.
 *
 * <p>The jar is {@code ${tributary.test.servers.dir}/s3proxy.jar}: the build copies it there
 * (maven-dependency-plugin, generate-test-resources) and sets the system property for Surefire and
 * Failsafe. Without the property, {@code target/test-servers/s3proxy.jar} of the nearest ancestor
 * of the working directory that has one is used.
 *
 * <p>The child runs {@link S3ProxyLauncher}, which stops it when this JVM dies, even by {@code kill
 * -9}. Use {@link #shared()} (one server per test JVM, started on first use, stopped by a shutdown
 * hook) and a fresh bucket per test from {@link #createBucket()}; {@link #start()} gives a private
 * server that the caller closes (for tests that stop it).
 */
public final class S3TestServer implements AutoCloseable {
  /** The access key of the test server's single identity. */
  public static final String ACCESS_KEY = "tributary-test";

  /** The secret key of the test server's single identity. */
  public static final String SECRET_KEY = "tributary-test-secret";

  private static final Logger LOG = LoggerFactory.getLogger(S3TestServer.class);
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final AtomicInteger BUCKETS = new AtomicInteger();
  private static volatile S3TestServer shared;

  private final Process process;
  private final Path workDir;
  private final Path log;
  private final URI endpoint;
  private final S3Client admin;
  private final boolean isShared;

  private S3TestServer(Process process, Path workDir, Path log, URI endpoint, boolean isShared) {
    this.process = process;
    this.workDir = workDir;
    this.log = log;
    this.endpoint = endpoint;
    this.isShared = isShared;
    this.admin =
        S3Client.builder()
            .endpointOverride(endpoint)
            .region(Region.of(S3Settings.DEFAULT_REGION))
            .forcePathStyle(true)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
            .build();
  }

  /** The server shared by every test in this JVM, started on the first call. */
  public static S3TestServer shared() {
    S3TestServer server = shared;
    if (server == null) {
      synchronized (S3TestServer.class) {
        server = shared;
        if (server == null) {
          server = launch(true, ProcessHandle.current().pid());
          S3TestServer started = server;
          Runtime.getRuntime().addShutdownHook(new Thread(started::stop, "s3-test-server-stop"));
          shared = server;
        }
      }
    }
    return server;
  }

  /** Starts a private server; the caller must {@link #close()} it. */
  public static S3TestServer start() {
    return launch(false, ProcessHandle.current().pid());
  }

  /** Starts a private server that stops itself when the process {@code parentPid} ends. */
  static S3TestServer startWatching(long parentPid) {
    return launch(false, parentPid);
  }

  /** Whether the server's process is still running. */
  public boolean isRunning() {
    return process.isAlive();
  }

  /** The server's endpoint, e.g. {@code http://127.0.0.1:41234}. */
  public URI endpoint() {
    return endpoint;
  }

  /**
   * Settings that reach this server: its endpoint, path-style addressing, its credentials, and S3's
   * minimum part size (5 MiB) so that tests exercise multipart uploads cheaply.
   */
  public S3Settings settings() {
    return S3Settings.defaults()
        .withEndpoint(endpoint)
        .withPathStyleAccess()
        .withCredentials(ACCESS_KEY, SECRET_KEY)
        .withMultipartPartSize(S3Settings.MIN_PART_SIZE);
  }

  /** Creates a new, empty bucket with a unique name and returns the name. */
  public String createBucket() {
    String name =
        "test-" + BUCKETS.incrementAndGet() + "-" + UUID.randomUUID().toString().substring(0, 8);
    admin.createBucket(b -> b.bucket(name));
    return name;
  }

  /** The server's output so far (for failure messages). */
  public String output() {
    return readLog(log);
  }

  /**
   * Stops a server from {@link #start()} and deletes its files. On the {@link #shared()} server
   * this does nothing: the shutdown hook stops it when the JVM exits.
   */
  @Override
  public void close() {
    if (!isShared) {
      stop();
    }
  }

  private void stop() {
    admin.close();
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteRecursively(workDir);
  }

  private static S3TestServer launch(boolean isShared, long parentPid) {
    Path jar = locateJar();
    Path workDir;
    try {
      workDir = Files.createTempDirectory("s3-test-server-");
      Files.createDirectories(workDir.resolve("data"));
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create a work directory for the S3 test server", e);
    }
    int port = freePort();
    URI endpoint = URI.create("http://127.0.0.1:" + port);
    Path properties = workDir.resolve("s3proxy.properties");
    Path log = workDir.resolve("s3proxy.log");
    String config =
        String.join(
            "\n",
            "s3proxy.endpoint=" + endpoint,
            "s3proxy.authorization=aws-v2-or-v4",
            "s3proxy.identity=" + ACCESS_KEY,
            "s3proxy.credential=" + SECRET_KEY,
            "jclouds.provider=filesystem-nio2",
            "jclouds.filesystem.basedir=" + workDir.resolve("data"),
            "");
    Process process;
    try {
      Files.writeString(properties, config, StandardCharsets.UTF_8);
      ProcessBuilder builder =
          new ProcessBuilder(
                  List.of(
                      javaBinary(),
                      "-Xmx256m",
                      "-XX:+UseSerialGC",
                      "-XX:TieredStopAtLevel=1",
                      // start-up is most of a test server's cost: skip verifying the jar's classes
                      "-XX:+UnlockDiagnosticVMOptions",
                      "-XX:-BytecodeVerificationRemote",
                      "-cp",
                      jar + File.pathSeparator + launcherClasspath(),
                      S3ProxyLauncher.class.getName(),
                      Long.toString(parentPid),
                      "--properties",
                      properties.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().put("LOG_LEVEL", "warn");
      process = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot start the S3 test server from " + jar, e);
    }
    S3TestServer server = new S3TestServer(process, workDir, log, endpoint, isShared);
    long started = System.nanoTime();
    try {
      server.awaitReady();
      LOG.info(
          "S3 test server (S3Proxy) ready at {} in {} ms",
          endpoint,
          (System.nanoTime() - started) / 1_000_000);
    } catch (RuntimeException | Error e) {
      String output = readLog(log);
      server.stop();
      throw new IllegalStateException(
          "S3 test server (S3Proxy, "
              + jar
              + ") did not become ready"
              + " at "
              + endpoint
              + " within "
              + STARTUP_TIMEOUT.toSeconds()
              + " s: "
              + e
              + "\n--- server output ---\n"
              + output,
          e);
    }
    return server;
  }

  private void awaitReady() {
    Awaitility.await("S3 test server at " + endpoint)
        .atMost(STARTUP_TIMEOUT)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(50))
        .failFast("the S3Proxy process exited", () -> !process.isAlive())
        .until(this::answersRequests);
  }

  private boolean answersRequests() {
    if (!portOpen()) {
      return false;
    }
    try {
      admin.listBuckets();
      return true;
    } catch (RuntimeException e) {
      return false; // listening but not serving yet
    }
  }

  private boolean portOpen() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static Path locateJar() {
    String dir = System.getProperty("tributary.test.servers.dir");
    if (dir != null && !dir.isBlank()) {
      Path jar = Path.of(dir, "s3proxy.jar");
      if (Files.isRegularFile(jar)) {
        return jar;
      }
      throw new IllegalStateException(
          "S3Proxy jar not found at "
              + jar
              + " (from system property"
              + " tributary.test.servers.dir): run 'mvn -pl storage generate-test-resources' from the"
              + " project root, which copies it there");
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      Path jar = p.resolve("target/test-servers/s3proxy.jar");
      if (Files.isRegularFile(jar)) {
        return jar;
      }
    }
    throw new IllegalStateException(
        "S3Proxy jar not found: system property"
            + " tributary.test.servers.dir is not set and no target/test-servers/s3proxy.jar exists"
            + " above "
            + Path.of("").toAbsolutePath()
            + "; run 'mvn -pl storage"
            + " generate-test-resources' from the project root, which copies it there");
  }

  /** Where S3ProxyLauncher was loaded from: test-classes here, the storage test-jar elsewhere. */
  private static String launcherClasspath() {
    try {
      return Path.of(
              S3ProxyLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException | RuntimeException e) {
      throw new IllegalStateException(
          "Cannot locate the classes of "
              + S3ProxyLauncher.class
              + " to put on the S3 test server's classpath",
          e);
    }
  }

  private static String javaBinary() {
    return ProcessHandle.current()
        .info()
        .command()
        .filter(command -> Files.isExecutable(Path.of(command)))
        .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("No free TCP port for the S3 test server", e);
    }
  }

  private static String readLog(Path log) {
    try {
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.length() > 8000 ? "..." + text.substring(text.length() - 8000) : text;
    } catch (IOException e) {
      return "(no output: " + e + ")";
    }
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Best effort: it is a temporary directory.
    }
  }
}
