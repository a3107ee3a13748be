package dev.tributary.service.parse.avro;

import dev.tributary.service.registry.RegisteredSchema;
import dev.tributary.service.registry.UnknownSchemaException;

/**
 * Where writer schemas come from: the registry client ({@link
 * dev.tributary.service.registry.SchemaRegistryClient#schemaById}), or, in tests, schemas checked
 * in.
 */
@FunctionalInterface
public interface SchemaSource {
  /**
   * The schema registered under {@code id}.
   *
   * @throws UnknownSchemaException the id is unknown (the record is quarantined)
   * @throws dev.tributary.service.parse.DecoderUnavailableException cannot tell now (the batch
   *     fails)
   */
  RegisteredSchema schemaById(int id) throws UnknownSchemaException;
}
