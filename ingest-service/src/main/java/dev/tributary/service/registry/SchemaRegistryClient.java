package dev.tributary.service.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.config.RegistrySpec;
import dev.tributary.config.Secrets;
import dev.tributary.storage.retry.RetryPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Looks up writer schemas by id in a registry speaking the Confluent Schema Registry REST API:
 * {@code GET /schemas/ids/{id}} ({@code schemaType}, {@code schema}, {@code references}), each
 * reference resolved with {@code GET /subjects/{subject}/versions/{version}}; and registers the
 * schema of an Avro Kafka sink's values ({@link #register}, {@code POST
 * /subjects/{subject}/versions}).
 *
 * <p>Answers by id are cached for the client's life (an id never changes meaning), so a pipeline
 * asks once per writer schema. Failures are sorted: a 404 is {@link UnknownSchemaException} (the
 * record's problem: quarantined); no answer, a timeout, 5xx, 408 or 429 are retried with
 * exponential backoff ({@link #DEFAULT_RETRY}) and then {@link SchemaRegistryUnavailableException}
 * (transient: the batch fails and is replayed); any other refusal, and a TLS handshake that fails
 * (an untrusted certificate), is {@link SchemaRegistryException} (the settings are wrong). Every
 * message names the registry by its URL, with the pipeline's secrets masked.
 *
 * <p>Thread-safe.
 */
public final class SchemaRegistryClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The retries of a registry request by default, site {@code registry.fetch}: five tries over
   * about 8 seconds (0.5 s doubling up to 4 s). Only what the client calls transient is retried: no
   * answer, a timeout, 5xx, 408 and 429; the client sets that rule itself, whatever the predicate
   * of the policy it is given.
   */
  public static final RetryPolicy DEFAULT_RETRY =
      RetryPolicy.named("registry.fetch")
          .withMaxAttempts(5)
          .withBackoff(Duration.ofMillis(500), Duration.ofSeconds(4));

  /** How the messages name the registry's keys by default (RegistryMessages). */
  private static final String FORMAT_KEYS = "format.*.registry";

  private final String pipelineId;
  private final String url;
  private final Optional<String> authorization;
  private final Duration timeout;
  private final RetryPolicy retry;
  private final Secrets secrets;
  private final String keyPath;
  private final HttpClient http;
  private final ConcurrentHashMap<Integer, RegisteredSchema> byId = new ConcurrentHashMap<>();

  /**
   * A client for the registry of a format ({@code format.avro.registry}, {@code
   * format.protobuf.registry}).
   *
   * @throws IllegalArgumentException when the TLS CA file cannot be read (message masked)
   */
  public SchemaRegistryClient(
      String pipelineId, RegistrySpec spec, Secrets secrets, RetryPolicy retry) {
    this(pipelineId, spec, secrets, retry, FORMAT_KEYS);
  }

  /**
   * A client for the registry declared at {@code keyPath} ({@code sink.kafka.registry}), which its
   * messages name where they tell what to fix.
   *
   * @throws IllegalArgumentException when the TLS CA file cannot be read (message masked)
   */
  public SchemaRegistryClient(
      String pipelineId, RegistrySpec spec, Secrets secrets, RetryPolicy retry, String keyPath) {
    this.keyPath = keyPath;
    this.pipelineId = pipelineId;
    this.url = spec.url();
    this.timeout = spec.timeout();
    this.retry = retry.retryingOn(Unanswered.class::isInstance);
    this.secrets = secrets;
    this.authorization =
        spec.basicAuth()
            .map(
                b ->
                    "Basic "
                        + Base64.getEncoder().encodeToString(b.getBytes(StandardCharsets.UTF_8)))
            .or(() -> spec.bearerToken().map(t -> "Bearer " + t));
    HttpClient.Builder builder =
        HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NEVER);
    spec.caFile().ifPresent(file -> builder.sslContext(sslContext(file)));
    this.http = builder.build();
  }

  /** The registry's base URL, as declared. */
  public String url() {
    return url;
  }

  /**
   * The schema registered under {@code id}, with its references resolved; from the cache after the
   * first call.
   *
   * @throws UnknownSchemaException the registry does not know the id (404)
   * @throws SchemaRegistryUnavailableException the registry did not answer through every retry
   * @throws SchemaRegistryException the registry refused the request (bad credentials, wrong URL)
   */
  public RegisteredSchema schemaById(int id) throws UnknownSchemaException {
    RegisteredSchema cached = byId.get(id);
    if (cached != null) {
      return cached;
    }
    String what = "schema id " + id;
    JsonNode answer = get("/schemas/ids/" + id, what);
    if (answer == null) {
      throw new UnknownSchemaException(id, masked(RegistryMessages.unknownId(url, id)));
    }
    List<RegisteredSchema.Reference> references = new ArrayList<>();
    resolve(answer.path("references"), references, new HashSet<>(), what);
    RegisteredSchema schema =
        new RegisteredSchema(id, type(answer), text(answer, what), references);
    byId.putIfAbsent(id, schema);
    return schema;
  }

  /** Appends the references depth first (a reference's own references before it). */
  private void resolve(
      JsonNode refs, List<RegisteredSchema.Reference> out, Set<String> seen, String what)
      throws UnknownSchemaException {
    if (!refs.isArray()) {
      return;
    }
    for (JsonNode ref : refs) {
      String name = ref.path("name").asText();
      String subject = ref.path("subject").asText();
      int version = ref.path("version").asInt(-1);
      if (!seen.add(subject + "/" + version)) {
        continue;
      }
      String refWhat =
          "reference " + name + " (subject " + subject + " version " + version + ") of " + what;
      JsonNode answer =
          get(
              "/subjects/"
                  + URLEncoder.encode(subject, StandardCharsets.UTF_8)
                  + "/versions/"
                  + version,
              refWhat);
      if (answer == null) {
        throw new UnknownSchemaException(
            -1, masked("the schema registry at " + url + " has no " + refWhat + " (404)"));
      }
      resolve(answer.path("references"), out, seen, refWhat);
      out.add(new RegisteredSchema.Reference(name, subject, version, text(answer, refWhat)));
    }
  }

  /** GETs a path with retries; null for a 404. */
  private JsonNode get(String path, String what) {
    HttpRequest.Builder request = request(path).GET();
    return call(request, what, response -> getAnswer(response, what));
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(timeout)
            .header("Accept", "application/vnd.schemaregistry.v1+json, application/json");
    authorization.ifPresent(a -> request.header("Authorization", a));
    return request;
  }

  /** Sends with retries; the answer as {@code read} takes it. */
  private <T> T call(
      HttpRequest.Builder request, String what, Function<HttpResponse<String>, T> read) {
    try {
      return retry.call(attempt -> read.apply(sendOnce(request, what, attempt)));
    } catch (Unanswered e) {
      throw new SchemaRegistryUnavailableException(
          masked(RegistryMessages.unavailable(pipelineId, url, what, e.attempt, e.last)),
          e.lastError);
    }
  }

  /** One try: the answer, or {@link Unanswered} when it is worth another. */
  private HttpResponse<String> sendOnce(HttpRequest.Builder request, String what, int attempt) {
    HttpResponse<String> response;
    try {
      response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (SSLHandshakeException e) {
      // An untrusted or mismatched certificate: the settings are wrong, retrying cannot help.
      throw new SchemaRegistryException(
          masked(
              RegistryMessages.untrusted(pipelineId, url, what, String.valueOf(e.getMessage()))));
    } catch (IOException e) {
      throw new Unanswered(
          attempt,
          e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SchemaRegistryUnavailableException(
          masked(RegistryMessages.unavailable(pipelineId, url, what, attempt, "interrupted")), e);
    }
    int status = response.statusCode();
    if (status >= 500 || status == 429 || status == 408) {
      throw new Unanswered(attempt, "HTTP " + status, null);
    }
    return response;
  }

  /** A GET's answer: its JSON, null for a 404. */
  private JsonNode getAnswer(HttpResponse<String> response, String what) {
    int status = response.statusCode();
    if (status == 404) {
      return null;
    }
    if (status != 200) {
      throw new SchemaRegistryException(
          masked(RegistryMessages.refused(pipelineId, url, what, status, response.body())));
    }
    return json(response, what);
  }

  private JsonNode json(HttpResponse<String> response, String what) {
    try {
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new SchemaRegistryException(
          masked(
              RegistryMessages.notTheApi(
                  pipelineId,
                  url,
                  what,
                  String.valueOf(e.getMessage()).lines().findFirst().orElse("unreadable JSON"))));
    }
  }

  /**
   * Registers an Avro schema under {@code subject} ({@code POST /subjects/{subject}/versions}) and
   * returns its id. Idempotent: a schema the subject already has (or the registry knows under
   * another subject) keeps its id, so a restart asks again and gets the same answer. Retried like
   * the lookups.
   *
   * @param schema the schema's JSON text
   * @throws SchemaRegistryException the registry refused the schema: incompatible with the
   *     subject's earlier versions under its compatibility level (409), not a valid schema (422),
   *     or the request itself (401, 403, another 4xx); the message names the pipeline, the subject
   *     and the registry's own message
   * @throws SchemaRegistryUnavailableException the registry did not answer through every retry
   */
  public int register(String subject, String schema) {
    String what = "the schema of subject " + subject;
    ObjectNode body = JSON.createObjectNode();
    body.put("schema", schema);
    HttpRequest.Builder request =
        request("/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8) + "/versions")
            .header("Content-Type", "application/vnd.schemaregistry.v1+json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    JsonNode answer =
        call(
            request,
            what,
            response -> {
              int status = response.statusCode();
              if (status == 409 || status == 422) {
                throw new SchemaRegistryException(
                    masked(
                        RegistryMessages.schemaRefused(
                            pipelineId, url, subject, status, registryMessage(response.body()))));
              }
              if (status != 200) {
                throw new SchemaRegistryException(
                    masked(
                        RegistryMessages.refused(pipelineId, url, what, status, response.body())));
              }
              return json(response, what);
            });
    JsonNode id = answer.get("id");
    if (id == null || !id.canConvertToInt()) {
      throw new SchemaRegistryException(
          masked(RegistryMessages.notTheApi(pipelineId, url, what, "no \"id\" in the answer")));
    }
    return id.asInt();
  }

  /**
   * The {@code message} of an error answer ({@code {"error_code": …, "message": …}}), else the
   * body.
   */
  private static String registryMessage(String body) {
    try {
      JsonNode message = JSON.readTree(body).get("message");
      if (message != null && message.isTextual()) {
        return message.asText();
      }
    } catch (IOException e) {
      // not JSON: the body says it
    }
    return body == null ? "" : body.strip();
  }

  /**
   * A try that got no usable answer (no connection, a timeout, 5xx, 408, 429): the only failure
   * retried. Carries what the final {@link SchemaRegistryUnavailableException} says.
   */
  private static final class Unanswered extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int attempt;
    private final String last;
    private final transient IOException lastError;

    Unanswered(int attempt, String last, IOException lastError) {
      super(last, null, false, false);
      this.attempt = attempt;
      this.last = last;
      this.lastError = lastError;
    }
  }

  private String text(JsonNode answer, String what) {
    JsonNode schema = answer.get("schema");
    if (schema == null || !schema.isTextual()) {
      throw new SchemaRegistryException(
          masked(
              RegistryMessages.notTheApi(
                  pipelineId, url, what, "no \"schema\" text in the answer")));
    }
    return schema.asText();
  }

  private static String type(JsonNode answer) {
    JsonNode type = answer.get("schemaType");
    return type == null || type.isNull() ? "AVRO" : type.asText();
  }

  /** A message with the registry's keys named as declared and the pipeline's secrets masked. */
  private String masked(String message) {
    return secrets.mask(message.replace(FORMAT_KEYS, keyPath));
  }

  private SSLContext sslContext(String file) {
    try (InputStream in = Files.newInputStream(Path.of(file))) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      int i = 0;
      for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        trust.setCertificateEntry("registry-ca-" + i++, cert);
      }
      if (i == 0) {
        throw new GeneralSecurityException("no certificate in the file");
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          masked(RegistryMessages.badCaFile(pipelineId, file, e.toString())), e);
    }
  }
}
