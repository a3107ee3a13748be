package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on pipelines with the sinks beyond Delta: the plan names each sink, a Kafka key
 * over an unknown column is named with its key, an Avro value is planned with its subject and
 * checked (registry, Avro column names), and the continuous trigger is planned for a Kafka to Kafka
 * pipeline and refused with a JDBC sink.
 */
class SinksValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private static final String BASE =
      """
      pipeline: clean-events
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [events] } }
      format: { json: { schema: { event_id: string, user_id: string, amount: long } } }
      sinks:
        - jdbc: { url: "jdbc:postgresql://localhost:5432/shop", table: events }
        - kafka: { bootstrap-servers: localhost:9092, topic: clean-events, key: "user_id" }
      checkpoint: /tmp/checkpoints/clean-events
      """;

  private int validate(String yaml) throws Exception {
    return cli.validate(dir.resolve("clean-events.yaml"), yaml);
  }

  private String err() {
    return cli.err();
  }

  @Test
  void thePlanNamesEverySink() throws Exception {
    assertThat(validate(BASE)).as(err()).isZero();
    assertThat(cli.out())
        .contains("jdbc ")
        .contains("append")
        .contains("clean-events")
        .contains("key user_id")
        .contains("exactly-once");
  }

  @Test
  void aKafkaKeyOverAnUnknownColumnIsNamed() throws Exception {
    assertThat(validate(BASE.replace("key: \"user_id\"", "key: \"customer\""))).isEqualTo(1);
    assertThat(err()).contains("sinks[1].kafka.key: ").contains("customer");
  }

  @Test
  void theContinuousTriggerIsPlannedForAKafkaToKafkaPipeline() throws Exception {
    String continuous =
        BASE.replace(
                "  - jdbc: { url: \"jdbc:postgresql://localhost:5432/shop\", table: events }\n", "")
            + "trigger: { continuous: 1s }\n";
    assertThat(validate(continuous)).as(err()).isZero();
    assertThat(cli.out()).contains("trigger:     continuous, progress every 1 second");
    assertThat(validate(BASE + "trigger: { continuous: 1s }\n")).isEqualTo(1);
    assertThat(err()).contains("trigger.continuous: ").contains("a jdbc sink commits per batch");
  }

  @Test
  void anAvroValueIsPlannedWithItsSubjectAndNeedsAvroNamesAndARegistry() throws Exception {
    String avro =
        BASE.replace(
            "key: \"user_id\" }",
            "key: \"user_id\", value: avro, registry: { url: \"http://localhost:8081\" } }");
    assertThat(validate(avro)).as(err()).isZero();
    assertThat(cli.out())
        .contains("value avro (subject clean-events-value at http://localhost:8081), key user_id");

    String badName = avro.replace("amount: long", "amount: long, \"amount-eur\": long");
    assertThat(validate(badName)).isEqualTo(1);
    assertThat(err())
        .contains(
            "sinks[1].kafka.value: value: avro: column 'amount-eur' is not an Avro name (a letter"
                + " or _, then letters, digits or _), so it cannot be a field of the value's"
                + " record; write value: json for this pipeline");

    assertThat(validate(BASE.replace("key: \"user_id\" }", "value: avro }"))).isEqualTo(1);
    assertThat(err())
        .contains("clean-events.yaml:6:")
        .contains("sinks[1].kafka.value: value: avro needs a schema registry");
  }
}
