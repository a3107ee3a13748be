package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.service.testing.ChildJvm;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Known secrets go through every path that reports a problem: validation errors (a malformed
 * reference inside a JAAS line with its password, a substituted S3 endpoint, a substituted
 * path-style, a substituted value under an ordinary key), a compile error, pipelines failing at run
 * time in {@code serve} (a local path holding a substituted value that cannot be created, a SASL
 * login against an unreachable broker), the REST answers and health details, a maintenance error,
 * {@code validate}'s plan and {@code run}'s failure. Every byte those processes print (stdout,
 * stderr, logs) and every HTTP body is searched for the secrets; each path is also checked to have
 * reported something (masked), so that the search cannot pass on silence. The values of references
 * whose names do not look secret are shown: in a run-time reason, a Prometheus tag and the plan.
 */
class SecretsNeverShownIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ID = UUID.randomUUID().toString().substring(0, 8);
  private static final String FILE_PASSWORD = "file-jaas-password-" + ID;
  private static final String TOKEN = "api-token-" + ID;
  private static final Map<String, String> ENV =
      Map.of(
          "SECRET_HOST", "s3-host-secret-" + ID,
          "SECRET_STYLE", "style-secret-" + ID,
          "SECRET_NUMBER", "number-secret-" + ID,
          "SECRET_WORD", "word-secret-" + ID,
          "SECRET_DIR", "dir-secret-" + ID,
          "JAAS_PASSWORD", "env-jaas-password-" + ID,
          "TRIBUTARY_API_TOKEN", TOKEN);
  private static final String TABLES_DIR = "tables-" + ID;
  // Not secrets (see Secrets.isSecretVariable): their values are shown where they help.
  private static final Map<String, String> PLAIN =
      Map.of("KAFKA_BOOTSTRAP", "127.0.0.1:1", "TABLES_DIR", TABLES_DIR);
  private static final Duration SLOW = Duration.ofMinutes(3);

  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();
  private final StringBuilder seen = new StringBuilder();

  @AfterEach
  void stop() throws Exception {
    for (Process p : processes) {
      if (p.isAlive()) {
        p.destroyForcibly().waitFor();
      }
    }
  }

  private static String pipeline(String id, String dir, String sourceExtra, String rest) {
    return """
        pipeline: %s
        source:
          kafka:
            bootstrap-servers: ${KAFKA_BOOTSTRAP}
            topics: [t]
        %s
        format:
          json:
            schema:
              id: long
        sink:
          delta:
            path: %s/tables/%s
        checkpoint: %s/checkpoints/%s
        %s
        """
        .formatted(id, sourceExtra, dir, id, dir, id, rest);
  }

  private void writePipelines(Path folder) throws Exception {
    String base = dir.toString();
    Files.writeString(
        folder.resolve("jaas.yaml"),
        pipeline(
            "jaas",
            base + "/jaas",
            """
            properties:
              sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"u\\" password=\\"%s\\" ${BROKEN;"
        """
                .formatted(FILE_PASSWORD)
                .stripTrailing(),
            ""));
    Files.writeString(
        folder.resolve("endpoint.yaml"),
        pipeline(
            "endpoint",
            base + "/endpoint",
            "",
            "storage: { s3: { endpoint: \"ftp://${SECRET_HOST}:9000\" } }"));
    Files.writeString(
        folder.resolve("pathstyle.yaml"),
        pipeline(
            "pathstyle",
            base + "/pathstyle",
            "",
            "storage: { s3: { path-style: \"${SECRET_STYLE}\" } }"));
    Files.writeString(
        folder.resolve("offsets.yaml"),
        pipeline(
            "offsets", base + "/offsets", "    max-offsets-per-trigger: \"${SECRET_NUMBER}\"", ""));
    Files.writeString(
        folder.resolve("filter.yaml"),
        pipeline(
            "filter", base + "/filter", "", "transform:\n  - filter: \"nope = '${SECRET_WORD}'\""));
    // blocker is a file: nothing can be created under it, and the path names the secret (and a
    // plain reference's value).
    Files.writeString(dir.resolve("blocker"), "not a folder");
    Files.writeString(
        folder.resolve("blocked.yaml"),
        pipeline("blocked", base + "/blocker/${TABLES_DIR}/${SECRET_DIR}", "", ""));
    // The broker is unreachable: its metadata call gives up after 2 s instead of the default 30 s,
    // so the failure (and the restart awaited below) comes soon.
    Files.writeString(
        folder.resolve("sasl.yaml"),
        pipeline(
            "sasl",
            base + "/sasl",
            """
            properties:
              security.protocol: SASL_PLAINTEXT
              sasl.mechanism: PLAIN
              sasl.jaas.config: "org.apache.kafka.common.security.plain.PlainLoginModule required username=\\"u\\" password=\\"${JAAS_PASSWORD}\\";"
              default.api.timeout.ms: "2000"
        """
                .stripTrailing(),
            "trigger: { processing-time: 200ms }"));
  }

  private Process start(Path log, String... args) throws Exception {
    Map<String, String> env = new HashMap<>(ENV);
    env.putAll(PLAIN);
    env.put("TRIBUTARY_LOG_FORMAT", "text");
    Process p =
        ChildJvm.start(
            List.of("-Xmx256m", "-XX:+UseSerialGC"),
            "dev.tributary.service.cli.Main",
            List.of(args),
            log,
            dir,
            env);
    processes.add(p);
    return p;
  }

  /** Runs a CLI command to its end and returns what it printed (stdout and stderr). */
  private String cli(String... args) throws Exception {
    Path log = Files.createTempFile(dir, "cli", ".log");
    Process p = start(log, args);
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).as(String.join(" ", args)).isTrue();
    String output = Files.readString(log);
    seen.append(output);
    return output;
  }

  private String get(Http http, String path, String auth) throws Exception {
    HttpResponse<String> response = http.get(path, auth);
    seen.append(response.body());
    return response.body();
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  @Test
  void noSecretShowsInAnyOutputOfAnyCommand() throws Exception {
    Path folder = Files.createDirectories(dir.resolve("pipelines"));
    writePipelines(folder);
    int port = ChildJvm.freePort();
    Path serveLog = dir.resolve("serve.log");
    Process serve =
        start(
            serveLog,
            "serve",
            "--pipelines-dir",
            folder.toString(),
            "--port",
            Integer.toString(port));
    Http http = new Http("http://127.0.0.1:" + port);
    String auth = "Bearer " + TOKEN;
    // Both run-time failures have been reported at least once (and retried).
    await()
        .atMost(SLOW)
        .pollInterval(Duration.ofMillis(500))
        .ignoreExceptions()
        .failFast("serve exited", () -> !serve.isAlive())
        .untilAsserted(
            () -> {
              JsonNode list = JSON.readTree(http.get("/api/pipelines", auth).body());
              for (JsonNode p : list) {
                if (p.get("id").asText().equals("blocked") || p.get("id").asText().equals("sasl")) {
                  assertThat(p.get("restarts").asInt()).as(p.toString()).isGreaterThanOrEqualTo(1);
                }
              }
            });

    JsonNode list = JSON.readTree(get(http, "/api/pipelines", auth));
    Map<String, String> reasons = new TreeMap<>();
    for (JsonNode p : list) {
      reasons.put(p.get("id").asText(), p.get("reason").asText());
      get(http, "/api/pipelines/" + p.get("id").asText() + "?last=100", auth);
    }
    assertThat(reasons.get("jaas")).contains("malformed environment reference in '******'");
    // The endpoint is no secret: only the secret reference's value in it is masked.
    assertThat(reasons.get("endpoint"))
        .contains("endpoint 'ftp://******:9000' is not an http(s) URL");
    assertThat(reasons.get("pathstyle")).contains("cannot parse '******' as a boolean");
    assertThat(reasons.get("offsets")).contains("cannot parse '******' as a whole number");
    assertThat(reasons.get("filter")).contains("nope");
    assertThat(reasons.get("blocked")).contains("/blocker/" + TABLES_DIR + "/******/");
    assertThat(reasons.get("sasl")).isNotBlank();
    String health = get(http, "/actuator/health", auth);
    assertThat(health).as(() -> tail(serveLog)).contains("\"blocked\"").contains("******");
    get(http, "/actuator/health", null);
    get(http, "/actuator/health/storage", auth);
    get(http, "/actuator/health/kafka", auth);
    // Metric tags: the table tag is the sink location, its secret part masked.
    assertThat(get(http, "/actuator/prometheus", null))
        .contains("table=\"" + dir + "/blocker/" + TABLES_DIR + "/******/tables/blocked\"");
    HttpResponse<String> compact = http.post("/api/pipelines/blocked/compact", auth);
    seen.append(compact.body());
    assertThat(compact.body()).contains("******");

    serve.destroy(); // SIGTERM: the shutdown lines are searched too
    assertThat(serve.waitFor(2, TimeUnit.MINUTES)).isTrue();
    String serveOutput = Files.readString(serveLog);
    seen.append(serveOutput);
    assertThat(serveOutput).contains("Pipeline file").contains("******");

    for (String file : new String[] {"jaas", "endpoint", "pathstyle", "offsets", "filter"}) {
      assertThat(cli("validate", folder.resolve(file + ".yaml").toString()))
          .as(file)
          .contains("******");
    }
    Files.writeString(dir.resolve("plan.yaml"), pipeline("plan", dir + "/${SECRET_DIR}", "", ""));
    assertThat(cli("validate", dir.resolve("plan.yaml").toString()))
        .contains("source:      kafka 127.0.0.1:1 ")
        .contains("sink:        delta " + dir + "/******/tables/plan")
        .contains("environment: ${KAFKA_BOOTSTRAP} = 127.0.0.1:1; ${SECRET_DIR} = ******");
    // Rides out the (never ending) failure for a few seconds: its warnings are searched too.
    assertThat(
            cli(
                "run",
                "--pipeline",
                folder.resolve("blocked.yaml").toString(),
                "--once",
                "--max-outage",
                "5s"))
        .contains("******")
        .contains("gave up after an outage of");

    String everything = seen.toString();
    assertThat(everything).doesNotContain(FILE_PASSWORD).doesNotContain(TOKEN);
    for (Map.Entry<String, String> secret : ENV.entrySet()) {
      assertThat(everything).as(secret.getKey()).doesNotContain(secret.getValue());
    }
  }
}
