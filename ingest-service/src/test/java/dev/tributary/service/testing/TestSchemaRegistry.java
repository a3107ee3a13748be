package dev.tributary.service.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A schema registry speaking the Confluent REST API ({@link SchemaRegistryMain}) in a child JVM on
 * 127.0.0.1, which a test can {@link #stop} and {@link #start} again on the same port with the same
 * schemas. Close it at the end.
 */
public final class TestSchemaRegistry implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final int port;
  private final List<String> auth;
  private final HttpClient http;
  private Process process;

  private TestSchemaRegistry(Path dir, List<String> auth) {
    this.dir = dir;
    this.port = ChildJvm.freePort();
    this.auth = auth;
    this.http = client(auth);
  }

  /**
   * A client for registering schemas; it trusts the registry's own certificate when it serves
   * https.
   */
  private static HttpClient client(List<String> auth) {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    String tls = auth.stream().filter(a -> a.startsWith("tls=")).findFirst().orElse(null);
    if (tls != null) {
      try {
        int cut = tls.lastIndexOf(':');
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(Path.of(tls.substring(4, cut)))) {
          trust.load(in, tls.substring(cut + 1).toCharArray());
        }
        TrustManagerFactory tmf =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, tmf.getTrustManagers(), null);
        builder.sslContext(context);
      } catch (IOException | GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
    return builder.build();
  }

  /** Starts a registry without authentication, keeping its state and log under {@code dir}. */
  public static TestSchemaRegistry start(Path dir) throws IOException {
    return startWith(dir, List.of());
  }

  /** Starts a registry that requires {@code basic=user:pass} or {@code bearer=token}. */
  public static TestSchemaRegistry startWith(Path dir, List<String> auth) throws IOException {
    Files.createDirectories(dir);
    TestSchemaRegistry registry = new TestSchemaRegistry(dir, auth);
    registry.start();
    return registry;
  }

  /**
   * The base URL, {@code http://127.0.0.1:<port>} ({@code https} when started with a {@code tls=}
   * option).
   */
  public String url() {
    return (auth.stream().anyMatch(a -> a.startsWith("tls=")) ? "https" : "http")
        + "://127.0.0.1:"
        + port;
  }

  /**
   * Makes a self-signed certificate for 127.0.0.1 with the JDK's keytool: the PKCS12 key store the
   * registry serves with ({@code tls=} option, returned) and its certificate as PEM in {@code
   * caFile}.
   */
  public static String selfSignedTls(Path dir, Path caFile)
      throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path store = dir.resolve("registry.p12");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    run(
        List.of(
            keytool,
            "-genkeypair",
            "-alias",
            "registry",
            "-keyalg",
            "RSA",
            "-keysize",
            "2048",
            "-dname",
            "CN=127.0.0.1",
            "-ext",
            "SAN=ip:127.0.0.1",
            "-validity",
            "2",
            "-storetype",
            "PKCS12",
            "-keystore",
            store.toString(),
            "-storepass",
            "test-pass",
            "-keypass",
            "test-pass"));
    run(
        List.of(
            keytool,
            "-exportcert",
            "-rfc",
            "-alias",
            "registry",
            "-keystore",
            store.toString(),
            "-storepass",
            "test-pass",
            "-file",
            caFile.toString()));
    return "tls=" + store + ":test-pass";
  }

  private static void run(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(command.get(1) + " failed: " + output);
    }
  }

  /** (Re)starts the process on the same port; returns once it answers. */
  public synchronized void start() throws IOException {
    if (process != null && process.isAlive()) {
      return;
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                String.valueOf(ProcessHandle.current().pid()),
                String.valueOf(port),
                dir.resolve("state.json").toString()));
    args.addAll(auth);
    process =
        ChildJvm.start(
            List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"),
            SchemaRegistryMain.class.getName(),
            args,
            dir.resolve("registry.log"),
            dir);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "the test registry exited: " + Files.readString(dir.resolve("registry.log")));
      }
      try (var socket = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        try {
          Thread.sleep(50); // polling a child process's port: there is no event to wait on
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
      }
    }
    throw new IOException("the test registry did not listen on " + port + " within 60s");
  }

  /** Kills the process (a registry that is down); {@link #start} brings it back. */
  public synchronized void stop() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Makes every request answer {@code status} (e.g. 503) until called again with 0. */
  public void failWith(int status) throws IOException, InterruptedException {
    send("POST", "/__fail/" + status, "{}", List.of());
  }

  /**
   * Sets the compatibility level of {@code subject} ({@code PUT /config/{subject}}: NONE, the
   * default here, BACKWARD, FORWARD, FULL, or one of them _TRANSITIVE).
   */
  public void setCompatibility(String subject, String level)
      throws IOException, InterruptedException {
    send("PUT", "/config/" + subject, "{\"compatibility\": \"" + level + "\"}", authHeaders());
  }

  /** The text of the schema registered under {@code id} ({@code GET /schemas/ids/{id}}). */
  public String schemaText(int id) throws IOException, InterruptedException {
    return JSON.readTree(send("GET", "/schemas/ids/" + id, "", authHeaders()))
        .get("schema")
        .asText();
  }

  /** The ids of the versions of {@code subject}, oldest first. */
  public List<Integer> versionIds(String subject) throws IOException, InterruptedException {
    List<Integer> ids = new ArrayList<>();
    int count =
        JSON.readTree(send("GET", "/subjects/" + subject + "/versions", "", authHeaders())).size();
    for (int v = 1; v <= count; v++) {
      ids.add(
          JSON.readTree(send("GET", "/subjects/" + subject + "/versions/" + v, "", authHeaders()))
              .get("id")
              .asInt());
    }
    return ids;
  }

  /** Registers an Avro schema under {@code subject}; returns its id. */
  public int registerAvro(String subject, String schema) throws IOException, InterruptedException {
    return register(subject, "AVRO", schema, Map.of());
  }

  /**
   * Registers a schema of {@code type} with references (name -> [subject, version]) under {@code
   * subject}; returns its id.
   */
  public int register(
      String subject,
      String type,
      String schema,
      Map<String, Map.Entry<String, Integer>> references)
      throws IOException, InterruptedException {
    ObjectNode body = JSON.createObjectNode();
    body.put("schema", schema);
    body.put("schemaType", type);
    ArrayNode refs = body.putArray("references");
    references.forEach(
        (name, at) ->
            refs.addObject()
                .put("name", name)
                .put("subject", at.getKey())
                .put("version", at.getValue()));
    String answer =
        send(
            "POST",
            "/subjects/" + subject + "/versions",
            JSON.writeValueAsString(body),
            authHeaders());
    return JSON.readTree(answer).get("id").asInt();
  }

  private List<String> authHeaders() {
    String a = auth.stream().filter(o -> !o.startsWith("tls=")).findFirst().orElse(null);
    if (a == null) {
      return List.of();
    }
    return List.of(
        "Authorization",
        a.startsWith("basic=")
            ? "Basic " + Base64.getEncoder().encodeToString(a.substring(6).getBytes())
            : "Bearer " + a.substring(7));
  }

  private String send(String method, String path, String body, List<String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url() + path))
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(10));
    if (!headers.isEmpty()) {
      request.header(headers.get(0), headers.get(1));
    }
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          method + " " + path + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
