package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

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
    Path file = dir.resolve("clean-events.yaml");
    Files.writeString(file, yaml);
    out.reset();
    err.reset();
    return Main.run(
        new String[] {"validate", file.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  @Test
  void thePlanNamesEverySink() throws Exception {
    assertThat(validate(BASE)).as(err()).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
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
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("trigger:     continuous, progress every 1 second");
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
    assertThat(out.toString(StandardCharsets.UTF_8))
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
