package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on pipelines of Debezium events: the plan shows the defaulted {@code
 * delete-when}, the envelope's columns are the sink's, and the bad inputs exit 1 naming the key.
 */
class DebeziumValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private static final String BASE =
      """
      pipeline: customers
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [dbserver1.public.customers] } }
      format: { json: { envelope: debezium, schema: { id: long, name: string } } }
      sink:
        delta:
          path: /tmp/tables/customers
          write: upsert
          key: [id]
      checkpoint: /tmp/checkpoints/customers
      """;

  private int validate(String yaml) throws Exception {
    return cli.validate(dir.resolve("customers.yaml"), yaml);
  }

  private String err() {
    return cli.err();
  }

  @Test
  void thePlanDeletesOnOpDAndTheSourceTimeCanOrder() throws Exception {
    assertThat(validate(BASE)).as(err()).isZero();
    assertThat(cli.out())
        .contains(
            "records:     json, Debezium change events (truncates: fail), 4 columns",
            "write:       upsert by [id], deletes where _op = 'd', copy-on-write");
    assertThat(validate(BASE.replace("key: [id]", "key: [id]\n    sequence-by: _source_ts")))
        .as(err())
        .isZero();
  }

  @Test
  void aDeletePredicateSeesTheEnvelopesColumns() throws Exception {
    assertThat(validate(BASE.replace("key: [id]", "key: [id]\n    delete-when: \"_opp = 'd'\"")))
        .isEqualTo(1);
    assertThat(err()).contains("sink.delta.delete-when:").contains("_op, _source_ts");
  }

  @Test
  void anEnvelopeOnProtobufOrWithoutARowIsRefused() throws Exception {
    String protobuf =
        BASE.replace(
            "format: { json: { envelope: debezium, schema: { id: long, name: string } } }",
            "format:\n  protobuf:\n    message: db.Customer\n    registry: { url:"
                + " http://localhost:8081 }\n    envelope: debezium\n    schema: { id: long }");
    assertThat(validate(protobuf)).isEqualTo(1);
    assertThat(err()).contains("format.protobuf.envelope: envelope: debezium is not available");
    assertThat(validate(BASE.replace("schema: { id: long", "schema: { after.id: long")))
        .isEqualTo(1);
    assertThat(err()).contains("declare 'id' instead of 'after.id'");
  }
}
