package dev.tributary.service.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The smallest faithful implementation of the Confluent Schema Registry REST API that the tests
 * need, run as a child JVM ({@link TestSchemaRegistry}) so that a test can stop and restart it.
 * Apicurio (the registry on Maven Central) ships only the jar its Quarkus build augments, not a
 * runnable application, so the tests cannot start it.
 *
 * <p>Endpoints, as Confluent answers them: {@code POST /subjects/{s}/versions} ({@code schema},
 * {@code schemaType}, {@code references}) returns {@code {"id": n}}, the same id for the same schema
 * under any subject; {@code GET /schemas/ids/{id}} ({@code schemaType} omitted for Avro,
 * {@code references} when present; 404 with {@code error_code 40403} for an unknown id);
 * {@code GET /subjects/{s}/versions} and {@code GET /subjects/{s}/versions/{v|latest}} (404 with
 * 40401/40402). Authentication, when configured: basic or bearer, else 401. {@code POST
 * /__fail/{status}} makes every other request answer that status until {@code POST /__fail/0}
 * (a registry that answers 5xx). State is kept in a JSON file, so a restarted registry still knows
 * its schemas.
 *
 * <p>Arguments: parent pid, port, state file, then optionally {@code basic=user:pass} or
 * {@code bearer=token}, and {@code tls=<PKCS12 key store>:<password>} to serve https.
 */
public final class SchemaRegistryMain {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path stateFile;
  private final String authorization;
  private ObjectNode state;
  private volatile int failWith;

  private SchemaRegistryMain(Path stateFile, String authorization) throws IOException {
    this.stateFile = stateFile;
    this.authorization = authorization;
    this.state = Files.exists(stateFile) ? (ObjectNode) JSON.readTree(stateFile.toFile()) : JSON.createObjectNode();
    if (!state.has("schemas")) {
      state.set("schemas", JSON.createArrayNode());
      state.set("subjects", JSON.createObjectNode());
    }
  }

  public static void main(String[] args) throws Exception {
    long parent = Long.parseLong(args[0]);
    ProcessHandle.of(parent).ifPresentOrElse(
        handle -> handle.onExit().thenRun(() -> Runtime.getRuntime().halt(0)),
        () -> Runtime.getRuntime().halt(0));
    int port = Integer.parseInt(args[1]);
    String auth = null;
    String tls = null;
    for (int i = 3; i < args.length; i++) {
      String a = args[i];
      if (a.startsWith("basic=")) {
        auth = "Basic " + Base64.getEncoder().encodeToString(a.substring(6).getBytes(StandardCharsets.UTF_8));
      } else if (a.startsWith("bearer=")) {
        auth = "Bearer " + a.substring("bearer=".length());
      } else if (a.startsWith("tls=")) {
        tls = a.substring(4);
      }
    }
    SchemaRegistryMain registry = new SchemaRegistryMain(Path.of(args[2]), auth);
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    HttpServer server;
    if (tls == null) {
      server = HttpServer.create(address, 50);
    } else {
      int cut = tls.lastIndexOf(':');
      char[] password = tls.substring(cut + 1).toCharArray();
      java.security.KeyStore keys = java.security.KeyStore.getInstance("PKCS12");
      try (var in = Files.newInputStream(Path.of(tls.substring(0, cut)))) {
        keys.load(in, password);
      }
      javax.net.ssl.KeyManagerFactory kmf =
          javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);
      javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(address, 50);
      https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(context));
      server = https;
    }
    server.createContext("/", registry::handle);
    server.start();
    System.out.println("registry listening on " + port);
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
      if (authorization != null && !authorization.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
        answer(exchange, 401, error(401, "Unauthorized"));
        return;
      }
      String[] parts = path.substring(1).split("/");
      synchronized (this) {
        if (method.equals("GET") && parts.length == 3 && parts[0].equals("schemas") && parts[1].equals("ids")) {
          schemaById(exchange, Integer.parseInt(parts[2]));
        } else if (parts.length >= 3 && parts[0].equals("subjects") && parts[2].equals("versions")) {
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
    if (!s.get("schemaType").asText().equals("AVRO")) {
      out.put("schemaType", s.get("schemaType").asText());
    }
    out.put("schema", s.get("schema").asText());
    if (s.get("references").size() > 0) {
      out.set("references", s.get("references"));
    }
    answer(exchange, 200, out);
  }

  private void register(HttpExchange exchange, String subject) throws IOException {
    JsonNode body = JSON.readTree(exchange.getRequestBody());
    String text = body.get("schema").asText();
    String type = body.path("schemaType").asText("AVRO");
    JsonNode refs = body.has("references") ? body.get("references") : JSON.createArrayNode();
    ArrayNode schemas = (ArrayNode) state.get("schemas");
    int id = 0;
    for (int i = 0; i < schemas.size(); i++) {
      JsonNode s = schemas.get(i);
      if (s.get("schema").asText().equals(text) && s.get("schemaType").asText().equals(type)
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
    ArrayNode versions = subjects.has(subject) ? (ArrayNode) subjects.get(subject) : subjects.putArray(subject);
    boolean known = false;
    for (JsonNode v : versions) {
      known |= v.asInt() == id;
    }
    if (!known) {
      versions.add(id);
      Files.writeString(stateFile, JSON.writeValueAsString(state));
    }
    ObjectNode out = JSON.createObjectNode();
    out.put("id", id);
    answer(exchange, 200, out);
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
    if (!s.get("schemaType").asText().equals("AVRO")) {
      out.put("schemaType", s.get("schemaType").asText());
    }
    out.put("schema", s.get("schema").asText());
    if (s.get("references").size() > 0) {
      out.set("references", s.get("references"));
    }
    answer(exchange, 200, out);
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
