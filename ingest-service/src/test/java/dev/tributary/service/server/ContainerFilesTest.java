package dev.tributary.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.sun.net.httpserver.HttpServer;
import dev.tributary.service.testing.ChildJvm;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the container files promise, checked without a Docker engine: docker-compose.yml publishes
 * every port on 127.0.0.1 only and has no default API token; the Dockerfile takes its base images
 * as build arguments, its health check follows the configured port (run against a real HTTP
 * server), and its entrypoint sizes the JVM from the cgroup limit, with a cap when there is none.
 */
class ContainerFilesTest {
  private static final Path ROOT = Path.of("..");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  @TempDir Path dir;

  @Test
  void composePublishesEveryPortOnLoopbackOnly() throws Exception {
    JsonNode services = YAML.readTree(ROOT.resolve("docker-compose.yml").toFile()).get("services");
    List<String> published = new ArrayList<>();
    services
        .fields()
        .forEachRemaining(
            service -> {
              JsonNode ports = service.getValue().get("ports");
              if (ports != null) {
                ports.forEach(port -> published.add(service.getKey() + " " + port.asText()));
              }
            });
    assertThat(published)
        .hasSizeGreaterThanOrEqualTo(4)
        .allSatisfy(
            port ->
                assertThat(port)
                    .matches("\\S+ 127\\.0\\.0\\.1:(\\d+|\\$\\{[^}]+}):(\\d+|\\$\\{[^}]+})"));
    assertThat(published).anySatisfy(port -> assertThat(port).startsWith("tributary 127.0.0.1:"));
  }

  @Test
  void composeHasNoDefaultTokenAndRefusesToStartWithoutOne() throws Exception {
    String compose = Files.readString(ROOT.resolve("docker-compose.yml"));
    JsonNode env = YAML.readTree(compose).get("services").get("tributary").get("environment");
    // ${VAR:?message} makes compose stop with the message when VAR is unset or empty.
    assertThat(env.get("TRIBUTARY_API_TOKEN").asText())
        .matches("\\$\\{TRIBUTARY_API_TOKEN:\\?[^}]+}");
    assertThat(compose).doesNotContainPattern("TRIBUTARY_API_TOKEN:-|TRIBUTARY_API_TOKEN=[^$\\s]");
  }

  @Test
  void theBaseImagesAreBuildArgumentsPinnedByDigest() throws Exception {
    List<String> lines = Files.readAllLines(ROOT.resolve("Dockerfile"));
    List<String> froms = lines.stream().filter(l -> l.startsWith("FROM ")).toList();
    assertThat(froms)
        .hasSize(3)
        .allSatisfy(from -> assertThat(from).matches("FROM \\$\\{[A-Z_]+}( AS \\w+)?"));
    assertThat(lines.stream().filter(l -> l.startsWith("ARG ") && l.contains("_IMAGE=")))
        .as("every base image pinned by digest")
        .hasSize(2)
        .allSatisfy(
            arg -> assertThat(arg).matches("ARG [A-Z_]+=[a-z0-9.-]+:[\\w.-]+@sha256:[0-9a-f]{64}"));
  }

  @Test
  void theHealthCheckFollowsTheConfiguredPort() throws Exception {
    List<String> command = healthCheckCommand();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/actuator/health/liveness",
        exchange -> {
          byte[] body = "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      int port = server.getAddress().getPort();
      int closed = ChildJvm.freePort();
      assertThat(run(command, Map.of("TRIBUTARY_PORT", Integer.toString(port))).exitCode).isZero();
      assertThat(
              run(
                      command,
                      Map.of(
                          "TRIBUTARY_PORT",
                          Integer.toString(closed),
                          "SERVER_PORT",
                          Integer.toString(port)))
                  .exitCode)
          .as("SERVER_PORT wins, as in Spring")
          .isZero();
      assertThat(run(command, Map.of("TRIBUTARY_PORT", Integer.toString(closed))).exitCode)
          .isNotZero();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void theEntrypointCapsTheJvmOnlyWithoutAMemoryLimitOrAnExplicitSize() throws Exception {
    Path v2 = Files.createDirectories(dir.resolve("v2"));
    Files.writeString(v2.resolve("memory.max"), "max\n");
    assertThat(entrypoint(v2, Map.of())).isEqualTo("-XX:MaxRAM=2g " + LAUNCH);
    assertThat(entrypoint(v2, Map.of("TRIBUTARY_MEMORY_WITHOUT_LIMIT", "768m")))
        .isEqualTo("-XX:MaxRAM=768m " + LAUNCH);
    assertThat(entrypoint(v2, Map.of("JAVA_TOOL_OPTIONS", "-XX:+UseG1GC -Xmx3g")))
        .isEqualTo(LAUNCH);
    assertThat(entrypoint(v2, Map.of("TRIBUTARY_JAVA_OPTS", "-Xmx6g -XX:+AlwaysPreTouch")))
        .isEqualTo("-Xmx6g -XX:+AlwaysPreTouch " + LAUNCH);

    Files.writeString(v2.resolve("memory.max"), "1073741824\n");
    assertThat(entrypoint(v2, Map.of())).isEqualTo(LAUNCH);

    Path v1 = Files.createDirectories(dir.resolve("v1/memory"));
    Files.writeString(v1.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
    assertThat(entrypoint(v1.getParent(), Map.of())).isEqualTo("-XX:MaxRAM=2g " + LAUNCH);
    Files.writeString(v1.resolve("memory.limit_in_bytes"), "536870912\n");
    assertThat(entrypoint(v1.getParent(), Map.of())).isEqualTo(LAUNCH);

    assertThat(entrypoint(Files.createDirectories(dir.resolve("none")), Map.of()))
        .isEqualTo("-XX:MaxRAM=2g " + LAUNCH);
  }

  @Test
  void theImageRunsTheEntrypointAndTheBuildContextHoldsIt() throws Exception {
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    assertThat(dockerfile)
        .contains("COPY deploy/docker/entrypoint.sh /app/entrypoint.sh")
        .contains("ENTRYPOINT [\"/app/entrypoint.sh\"]")
        .contains("-XX:MaxRAMPercentage=60")
        .contains("TRIBUTARY_MEMORY_WITHOUT_LIMIT=2g");
    assertThat(Files.readAllLines(ROOT.resolve(".dockerignore")))
        .contains("!deploy/docker/entrypoint.sh");
  }

  private static final String LAUNCH =
      "org.springframework.boot.loader.launch.JarLauncher serve --pipelines-dir /p";

  /** What the entrypoint executes, with {@code echo} standing in for java. */
  private String entrypoint(Path cgroup, Map<String, String> env) throws Exception {
    Map<String, String> all = new HashMap<>(env);
    all.put("TRIBUTARY_CGROUP_ROOT", cgroup.toString());
    all.put("TRIBUTARY_JAVA", "echo");
    Result result =
        run(
            List.of(
                "bash",
                ROOT.resolve("deploy/docker/entrypoint.sh").toString(),
                "serve",
                "--pipelines-dir",
                "/p"),
            all);
    assertThat(result.exitCode).as(result.output).isZero();
    return result.output.strip();
  }

  private static List<String> healthCheckCommand() throws Exception {
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    Matcher m = Pattern.compile("HEALTHCHECK [^\\n]*\\\\\\n\\s*CMD (\\[.*])").matcher(dockerfile);
    assertThat(m.find()).as("a HEALTHCHECK ... CMD [...] instruction").isTrue();
    List<String> command = new ArrayList<>();
    new ObjectMapper().readTree(m.group(1)).forEach(n -> command.add(n.asText()));
    assertThat(command.get(2)).doesNotContain("127.0.0.1/8080");
    return command;
  }

  private record Result(int exitCode, String output) {}

  private Result run(List<String> command, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().remove("TRIBUTARY_JAVA_OPTS");
    pb.environment().remove("SERVER_PORT");
    pb.environment().putAll(env);
    Process p = pb.start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
    return new Result(
        p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
