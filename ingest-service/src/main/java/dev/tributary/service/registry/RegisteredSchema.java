package dev.tributary.service.registry;

import java.util.List;
import java.util.Objects;

/**
 * A schema as the registry stores it under an id.
 *
 * @param id the global schema id records carry in their wire header
 * @param type {@code AVRO} (the registry's default when it omits the field), {@code PROTOBUF} or
 *     {@code JSON}
 * @param text the schema's text (Avro JSON, a .proto file, a JSON Schema)
 * @param references the schemas it imports, resolved depth first: each reference's own references
 *     come before it, so parsing them in order defines every name before its use
 */
public record RegisteredSchema(int id, String type, String text, List<Reference> references) {

  /**
   * One resolved reference.
   *
   * @param name the name the referring schema uses (an Avro full name, a .proto import path)
   * @param subject the subject and version it was resolved from
   * @param text the referenced schema's text
   */
  public record Reference(String name, String subject, int version, String text) {
    public Reference {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(text, "text");
    }
  }

  public RegisteredSchema {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(text, "text");
    references = List.copyOf(references);
  }
}
