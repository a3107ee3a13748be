package dev.tributary.service.registry;

/** The registry client's user-facing messages, built in one place; every one is masked. */
final class RegistryMessages {
  private static final int MAX_BODY = 200;

  private RegistryMessages() {}

  static String unknownId(String url, int id) {
    return "schema id "
        + id
        + " is not in the schema registry at "
        + url
        + " (404); the producer wrote it with another registry, or the schema was deleted";
  }

  static String unavailable(String pipelineId, String url, String what, int attempts, String last) {
    return "Pipeline "
        + pipelineId
        + ": the schema registry at "
        + url
        + " did not answer "
        + what
        + " after "
        + attempts
        + " attempts (last: "
        + last
        + "); it is retried with the same offsets, nothing is quarantined."
        + " Check that the registry is up and format.*.registry.url is right";
  }

  static String refused(String pipelineId, String url, String what, int status, String body) {
    String hint =
        status == 401 || status == 403
            ? "; check format.*.registry.basic-auth / bearer-token"
            : "; check format.*.registry.url (a Confluent-compatible API, e.g. http://apicurio:8080/apis/ccompat/v7)";
    return "Pipeline "
        + pipelineId
        + ": the schema registry at "
        + url
        + " refused "
        + what
        + " with HTTP "
        + status
        + " "
        + shorten(body)
        + hint;
  }

  static String schemaRefused(
      String pipelineId, String url, String subject, int status, String message) {
    String why =
        status == 409
            ? "the schema derived from the output columns is incompatible with the subject's"
                + " earlier versions under its compatibility level. Make the change compatible"
                + " (add or drop nullable columns only, for BACKWARD), relax the subject's level"
                + " (PUT /config/"
                + subject
                + "), or write to a new topic"
            : "the registry does not take the derived schema as valid Avro; report it with the"
                + " pipeline's output columns";
    return "Pipeline "
        + pipelineId
        + ": the schema registry at "
        + url
        + " refused the value schema for subject "
        + subject
        + " (HTTP "
        + status
        + ": "
        + shorten(message)
        + "): "
        + why;
  }

  static String untrusted(String pipelineId, String url, String what, String problem) {
    return "Pipeline "
        + pipelineId
        + ": the TLS handshake with the schema registry at "
        + url
        + " failed for "
        + what
        + " ("
        + problem
        + "); if the registry's certificate is signed by a private CA, declare it in"
        + " format.*.registry.tls.ca-file";
  }

  static String notTheApi(String pipelineId, String url, String what, String problem) {
    return "Pipeline "
        + pipelineId
        + ": the schema registry at "
        + url
        + " answered "
        + what
        + " with something that is not the Confluent Schema Registry API ("
        + problem
        + "); check format.*.registry.url";
  }

  static String badCaFile(String pipelineId, String file, String problem) {
    return "Pipeline "
        + pipelineId
        + ": cannot read the registry's CA certificates from "
        + file
        + ": "
        + problem
        + "; format.*.registry.tls.ca-file must be a PEM file of X.509 certificates";
  }

  private static String shorten(String body) {
    String b = body == null ? "" : body.strip();
    return b.length() <= MAX_BODY ? b : b.substring(0, MAX_BODY) + "...";
  }
}
