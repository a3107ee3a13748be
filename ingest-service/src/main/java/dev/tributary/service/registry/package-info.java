/**
 * A client of the Confluent Schema Registry REST API (Confluent, Apicurio's {@code
 * /apis/ccompat/v7}, Redpanda, Karapace): writer schemas by id, with their references resolved,
 * cached forever (a schema id never changes meaning). Plain Java: the JDK's HttpClient and Jackson;
 * no Spring, no Kafka. A registry that is down is a transient failure ({@link
 * dev.tributary.service.registry.SchemaRegistryUnavailableException}); an id it does not know is
 * the record's problem ({@link dev.tributary.service.registry.UnknownSchemaException}).
 */
package dev.tributary.service.registry;
