package dev.tributary.service.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server started by the tests themselves, once per test JVM ({@link #shared}), on
 * a free port of 127.0.0.1, from the machine's PostgreSQL binaries (Debian's {@code postgresql}
 * package: {@code /usr/lib/postgresql/<version>/bin}; {@code .ci/run} installs it when missing; or
 * the directory {@code TRIBUTARY_PG_BIN} names). {@code initdb} makes a fresh cluster in a
 * temporary directory with password authentication (SCRAM) and without fsync; the server stops and
 * the directory is deleted when the JVM exits.
 *
 * <p>PostgreSQL refuses to run as root, and CI runs as root: then the directory is given to the
 * unprivileged user {@code nobody} and {@code initdb} and {@code postgres} run as that user through
 * {@code setpriv} (which execs, so the server process is the one this fixture owns and stops).
 *
 * <p>Tests get a database of their own ({@link #createDatabase}) owned by the login {@link #USER},
 * so they never see each other's tables.
 */
public final class PostgresTestServer {
  /** The login the tests (and the pipelines under test) use. */
  public static final String USER = "tributary";

  /** Its password: a real secret as far as masking is concerned. */
  public static final String PASSWORD = "pg-test-secret-7341";

  private static final String SUPERUSER_PASSWORD = "pg-superuser-secret-1597";
  private static PostgresTestServer shared;

  private final Path base;
  private final Process server;
  private final int port;

  private PostgresTestServer() throws Exception {
    Path bin = binaries();
    base = Files.createTempDirectory(Path.of("/tmp"), "tributary-pg-");
    Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path data = base.resolve("data");
    Path pwfile = base.resolve("superuser-password");
    Files.writeString(pwfile, SUPERUSER_PASSWORD + "\n");
    boolean root = "root".equals(System.getProperty("user.name"));
    if (root) {
      UserPrincipalLookupService users = base.getFileSystem().getUserPrincipalLookupService();
      Files.setOwner(base, users.lookupPrincipalByName("nobody"));
      Files.setOwner(pwfile, users.lookupPrincipalByName("nobody"));
    }
    run(
        command(
            root,
            bin.resolve("initdb").toString(),
            "-D",
            data.toString(),
            "-U",
            "postgres",
            "--pwfile=" + pwfile,
            "-A",
            "scram-sha-256",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync"),
        base.resolve("initdb.log"));
    port = freePort();
    ProcessBuilder pb =
        new ProcessBuilder(
            command(
                root,
                bin.resolve("postgres").toString(),
                "-D",
                data.toString(),
                "-p",
                Integer.toString(port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=" + base,
                "-c",
                "fsync=off",
                "-c",
                "synchronous_commit=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=60",
                "-c",
                "shared_buffers=32MB"));
    pb.redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(base.resolve("server.log").toFile()));
    server = pb.start();
    awaitReady();
    try (Connection c = superuser("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + USER + " LOGIN CREATEDB PASSWORD '" + PASSWORD + "'");
    }
  }

  /** The JVM's server, started on first use (about 2 s). */
  public static synchronized PostgresTestServer shared() {
    if (shared == null) {
      try {
        shared = new PostgresTestServer();
      } catch (Exception e) {
        throw new IllegalStateException("cannot start the test PostgreSQL server: " + e, e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(shared::stop));
    }
    return shared;
  }

  /** The port the server listens on (127.0.0.1). */
  public int port() {
    return port;
  }

  /** The JDBC URL of {@code database}. */
  public String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Creates a fresh database owned by {@link #USER} and returns its JDBC URL. */
  public String createDatabase() {
    String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = superuser("postgres");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " OWNER " + USER);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    return url(name);
  }

  /** A connection to {@code url} as {@link #USER}. */
  public static Connection connect(String url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", USER);
    p.setProperty("password", PASSWORD);
    return DriverManager.getConnection(url, p);
  }

  /** A superuser connection to a database of the server (for what a test user may not do). */
  public Connection superuser(String database) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "postgres");
    p.setProperty("password", SUPERUSER_PASSWORD);
    return DriverManager.getConnection(url(database), p);
  }

  /** The server process, for a test that must take the database away (it restarts nothing). */
  Process process() {
    return server;
  }

  private void awaitReady() throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    SQLException last = null;
    while (Instant.now().isBefore(deadline)) {
      if (!server.isAlive()) {
        throw new IllegalStateException(
            "postgres exited with " + server.exitValue() + ": " + log("server.log"));
      }
      try (Connection c = superuser("postgres")) {
        return;
      } catch (SQLException e) {
        last = e;
        Thread.sleep(100); // the server's own start, not a race a test waits out
      }
    }
    throw new IllegalStateException(
        "postgres did not accept connections within 60 s: " + last + "; " + log("server.log"));
  }

  private void stop() {
    server.destroy(); // SIGTERM: a smart shutdown, the clients are gone with the JVM
    try {
      if (!server.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(base)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // a leftover temporary directory
    }
  }

  private String log(String name) {
    try {
      return Files.readString(base.resolve(name));
    } catch (IOException e) {
      return "(no " + name + ")";
    }
  }

  /** {@code args}, run as {@code nobody} through {@code setpriv} when this JVM is root. */
  private static List<String> command(boolean root, String... args) {
    List<String> command = new ArrayList<>();
    if (root) {
      command.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"));
    }
    command.addAll(List.of(args));
    return command;
  }

  private static void run(List<String> command, Path log) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    Process p = pb.start();
    if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(command.get(0) + " took more than 2 minutes");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", command) + " failed (" + p.exitValue() + "): " + Files.readString(log));
    }
  }

  /**
   * The PostgreSQL binaries: {@code TRIBUTARY_PG_BIN}, else the newest {@code
   * /usr/lib/postgresql/<version>/bin} with an {@code initdb}.
   */
  static Path binaries() throws IOException {
    String configured = System.getenv("TRIBUTARY_PG_BIN");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured);
    }
    Path debian = Path.of("/usr/lib/postgresql");
    if (Files.isDirectory(debian)) {
      try (Stream<Path> versions = Files.list(debian)) {
        var found =
            versions
                .map(v -> v.resolve("bin"))
                .filter(b -> Files.isExecutable(b.resolve("initdb")))
                .max(
                    Comparator.comparingInt(
                        b -> {
                          try {
                            return Integer.parseInt(b.getParent().getFileName().toString());
                          } catch (NumberFormatException e) {
                            return 0;
                          }
                        }));
        if (found.isPresent()) {
          return found.get();
        }
      }
    }
    throw new IllegalStateException(
        "no PostgreSQL binaries: install them (apt-get install postgresql; .ci/run does this) or"
            + " set TRIBUTARY_PG_BIN to the directory holding initdb and postgres");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
