package dev.tributary.service.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The smallest faithful implementation of the Confluent Schema Registry REST API, on the JDK's HTTP
 * server, bound to the loopback address: the registry of {@code tributary demo avro} (in the demo's
 * JVM) and of the tests (in a child JVM that a test can kill and restart, see the test scope's
 * {@code SchemaRegistryMain}). Confluent's own registry is not on Maven Central, and Apicurio ships
 * only the jar its Quarkus build augments, not a runnable application.
 *
 * <p>Endpoints, as Confluent answers them: {@code POST /subjects/{s}/versions} ({@code schema},
 * {@code schemaType}, {@code references}) returns {@code {"id": n}}, the same id for the same
 * schema under any subject; {@code GET /schemas/ids/{id}} ({@code schemaType} omitted for Avro,
 * {@code references} when present; 404 with {@code error_code 40403} for an unknown id); {@code GET
 * /subjects/{s}/versions} and {@code GET /subjects/{s}/versions/{v|latest}} (404 with 40401/40402).
 * Authentication, when configured: one accepted {@code Authorization} header, else 401. {@code POST
 * /__fail/{status}} makes every other request answer that status until {@code POST /__fail/0} (a
 * registry that answers 5xx, for tests). State is kept in memory and, when a state file is given,
 * in that JSON file, so a restarted registry still knows its schemas.
 */
public final class LocalSchemaRegistry implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path stateFile;
  private final String authorization;
  private ObjectNode state;
  private volatile int failWith;
  private HttpServer server;

  private LocalSchemaRegistry(Path stateFile, String authorization) throws IOException {
    this.stateFile = stateFile;
    this.authorization = authorization;
    this.state =
        stateFile != null && Files.exists(stateFile)
            ? (ObjectNode) JSON.readTree(stateFile.toFile())
            : JSON.createObjectNode();
    if (!state.has("schemas")) {
      state.set("schemas", JSON.createArrayNode());
      state.set("subjects", JSON.createObjectNode());
    }
  }

  /**
   * Starts a registry on 127.0.0.1.
   *
   * @param port the port, 0 for any free one
   * @param stateFile where the schemas are kept across restarts, or null for memory only
   * @param authorization the one {@code Authorization} header value accepted, or null for none
   * @param tls serves https with this context, or null for http
   */
  public static LocalSchemaRegistry start(
      int port, Path stateFile, String authorization, SSLContext tls) throws IOException {
    LocalSchemaRegistry registry = new LocalSchemaRegistry(stateFile, authorization);
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    HttpServer server;
    if (tls == null) {
      server = HttpServer.create(address, 50);
    } else {
      HttpsServer https = HttpsServer.create(address, 50);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    server.createContext("/", registry::handle);
    server.start();
    registry.server = server;
    return registry;
  }

  /** The base URL ({@code http://127.0.0.1:port}). */
  public String url() {
    return (server instanceof HttpsServer ? "https" : "http")
        + "://127.0.0.1:"
        + server.getAddress().getPort();
  }

  /**
   * Registers {@code schema} of {@code type} (AVRO, PROTOBUF, JSON) under {@code subject}, in
   * process; its id.
   */
  public synchronized int register(String subject, String type, String schema) throws IOException {
    return register(subject, type, schema, JSON.createArrayNode());
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getRawPath();
      String method = exchange.getRequestMethod();
      if (path.startsWith("/__fail/")) {
        failWith = Integer.parseInt(path.substring("/__fail/".length()));
        answer(exchange, 200, JSON.createObjectNode());
        return;
      }
      if (failWith != 0) {
        answer(exchange, failWith, error(50001, "injected failure"));
        return;
      }
      if (authorization != null
          && !authorization.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        answer(exchange, 401, error(401, "Unauthorized"));
        return;
      }
      String[] parts = path.substring(1).split("/");
      synchronized (this) {
        if (method.equals("PUT") && parts.length == 2 && parts[0].equals("config")) {
          String subject = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
          String level = JSON.readTree(exchange.getRequestBody()).path("compatibility").asText();
          if (!Compatibility.LEVELS.contains(level)) {
            answer(exchange, 422, error(42203, "Invalid compatibility level " + level));
            return;
          }
          configs().put(subject, level);
          save();
          ObjectNode out = JSON.createObjectNode();
          out.put("compatibility", level);
          answer(exchange, 200, out);
        } else if (method.equals("GET")
            && parts.length == 3
            && parts[0].equals("schemas")
            && parts[1].equals("ids")) {
          schemaById(exchange, Integer.parseInt(parts[2]));
        } else if (parts.length >= 3
            && parts[0].equals("subjects")
            && parts[2].equals("versions")) {
          String subject = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
          if (method.equals("POST") && parts.length == 3) {
            register(exchange, subject);
          } else if (method.equals("GET") && parts.length == 3) {
            versions(exchange, subject);
          } else if (method.equals("GET") && parts.length == 4) {
            version(exchange, subject, parts[3]);
          } else {
            answer(exchange, 405, error(405, "method not allowed"));
          }
        } else {
          answer(exchange, 404, error(404, "HTTP 404 Not Found"));
        }
      }
    } catch (RuntimeException e) {
      answer(exchange, 500, error(50001, e.toString()));
    }
  }

  private void schemaById(HttpExchange exchange, int id) throws IOException {
    ArrayNode schemas = (ArrayNode) state.get("schemas");
    if (id < 1 || id > schemas.size()) {
      answer(exchange, 404, error(40403, "Schema " + id + " not found"));
      return;
    }
    JsonNode s = schemas.get(id - 1);
    ObjectNode out = JSON.createObjectNode();
    putSchema(out, s);
    answer(exchange, 200, out);
  }

  private void register(HttpExchange exchange, String subject) throws IOException {
    JsonNode body = JSON.readTree(exchange.getRequestBody());
    JsonNode refs = body.has("references") ? body.get("references") : JSON.createArrayNode();
    String type = body.path("schemaType").asText("AVRO");
    String text = body.get("schema").asText();
    if (type.equals("AVRO") && refs.isEmpty()) {
      String problem = Compatibility.problem(text, earlierAvro(subject, text), level(subject));
      if (problem != null) {
        boolean invalid = problem.startsWith(Compatibility.INVALID);
        answer(exchange, invalid ? 422 : 409, error(invalid ? 42201 : 409, problem));
        return;
      }
    }
    ObjectNode out = JSON.createObjectNode();
    out.put(
        "id",
        register(
            subject, body.path("schemaType").asText("AVRO"), body.get("schema").asText(), refs));
    answer(exchange, 200, out);
  }

  private int register(String subject, String type, String text, JsonNode refs) throws IOException {
    ArrayNode schemas = (ArrayNode) state.get("schemas");
    int id = 0;
    for (int i = 0; i < schemas.size(); i++) {
      JsonNode s = schemas.get(i);
      if (s.get("schema").asText().equals(text)
          && s.get("schemaType").asText().equals(type)
          && s.get("references").equals(refs)) {
        id = i + 1;
      }
    }
    if (id == 0) {
      ObjectNode s = JSON.createObjectNode();
      s.put("schema", text);
      s.put("schemaType", type);
      s.set("references", refs);
      schemas.add(s);
      id = schemas.size();
    }
    ObjectNode subjects = (ObjectNode) state.get("subjects");
    ArrayNode versions =
        subjects.has(subject) ? (ArrayNode) subjects.get(subject) : subjects.putArray(subject);
    boolean known = false;
    for (JsonNode v : versions) {
      known |= v.asInt() == id;
    }
    if (!known) {
      versions.add(id);
      save();
    }
    return id;
  }

  private void save() throws IOException {
    if (stateFile != null) {
      Files.writeString(stateFile, JSON.writeValueAsString(state));
    }
  }

  private ObjectNode configs() {
    if (!state.has("config")) {
      state.set("config", JSON.createObjectNode());
    }
    return (ObjectNode) state.get("config");
  }

  private String level(String subject) {
    return configs().path(subject).asText("NONE");
  }

  /**
   * The subject's Avro versions, oldest first; empty when it already holds {@code text} (which
   * registers again without a check, as Confluent does).
   */
  private List<String> earlierAvro(String subject, String text) {
    List<String> earlier = new ArrayList<>();
    JsonNode versions = state.get("subjects").get(subject);
    if (versions == null) {
      return earlier;
    }
    for (JsonNode v : versions) {
      JsonNode s = state.get("schemas").get(v.asInt() - 1);
      if (s.get("schema").asText().equals(text)) {
        return List.of();
      }
      if (s.get("schemaType").asText().equals("AVRO")) {
        earlier.add(s.get("schema").asText());
      }
    }
    return earlier;
  }

  private void versions(HttpExchange exchange, String subject) throws IOException {
    JsonNode versions = state.get("subjects").get(subject);
    if (versions == null) {
      answer(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
      return;
    }
    ArrayNode out = JSON.createArrayNode();
    for (int v = 1; v <= versions.size(); v++) {
      out.add(v);
    }
    answer(exchange, 200, out);
  }

  private void version(HttpExchange exchange, String subject, String version) throws IOException {
    JsonNode versions = state.get("subjects").get(subject);
    if (versions == null) {
      answer(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
      return;
    }
    int v = version.equals("latest") ? versions.size() : Integer.parseInt(version);
    if (v < 1 || v > versions.size()) {
      answer(exchange, 404, error(40402, "Version " + version + " not found."));
      return;
    }
    int id = versions.get(v - 1).asInt();
    JsonNode s = state.get("schemas").get(id - 1);
    ObjectNode out = JSON.createObjectNode();
    out.put("subject", subject);
    out.put("version", v);
    out.put("id", id);
    putSchema(out, s);
    answer(exchange, 200, out);
  }

  /**
   * The schema's fields of a registry answer; the type and references only when not the defaults
   * (Avro, none).
   */
  private static void putSchema(ObjectNode out, JsonNode s) {
    if (!s.get("schemaType").asText().equals("AVRO")) {
      out.put("schemaType", s.get("schemaType").asText());
    }
    out.put("schema", s.get("schema").asText());
    if (s.get("references").size() > 0) {
      out.set("references", s.get("references"));
    }
  }

  private static ObjectNode error(int code, String message) {
    ObjectNode e = JSON.createObjectNode();
    e.put("error_code", code);
    e.put("message", message);
    return e;
  }

  private static void answer(HttpExchange exchange, int status, JsonNode body) throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(body);
    exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
  }
}
