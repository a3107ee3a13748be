package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code validate} on upserting pipelines: the plan names the upsert, and each bad input of issue
 * 22 (missing key column, unorderable sequence-by, delete-when on an append sink, a stateful
 * pipeline asking for an upsert, a predicate that does not compile) exits 1 with a message naming
 * the key.
 */
class UpsertValidateTest {
  @TempDir Path dir;
  private final CommandLine cli = new CommandLine();

  private static final String BASE =
      """
      pipeline: customers
      source: { kafka: { bootstrap-servers: localhost:9092, topics: [customers] } }
      format: { json: { schema: { id: long, name: string, updated_at: timestamp, op: string } } }
      transform:
        - derive: { score: "length(name) * 1.5" }
      sink:
        delta:
          path: /tmp/tables/customers
          write: upsert
          key: [id]
          sequence-by: updated_at
          delete-when: "op = 'd'"
      checkpoint: /tmp/checkpoints/customers
      """;

  private int validate(String yaml) throws Exception {
    return cli.validate(dir.resolve("customers.yaml"), yaml);
  }

  private String err() {
    return cli.err();
  }

  @Test
  void thePlanShowsTheUpsert() throws Exception {
    assertThat(validate(BASE)).as(err()).isZero();
    assertThat(cli.out())
        .contains(
            "write:       upsert by [id], latest updated_at wins, deletes where op = 'd',"
                + " copy-on-write");
  }

  @Test
  void aMissingKeyColumnIsNamed() throws Exception {
    assertThat(validate(BASE.replace("key: [id]", "key: [customer_id]"))).isEqualTo(1);
    assertThat(err()).contains("sink.delta.key[0]: key column 'customer_id' is not a column");
  }

  @Test
  void aSequenceColumnThatCannotOrderIsNamedWithItsType() throws Exception {
    assertThat(validate(BASE.replace("sequence-by: updated_at", "sequence-by: name"))).isEqualTo(1);
    assertThat(err()).contains("sequence-by column 'name' is a string, which cannot order");
    // a derived column's type is known once compiled
    assertThat(validate(BASE.replace("sequence-by: updated_at", "sequence-by: score")))
        .isEqualTo(1);
    assertThat(err()).contains("sequence-by column 'score' is a double, which cannot order");
  }

  @Test
  void deleteWhenOnAnAppendSinkIsRefused() throws Exception {
    assertThat(validate(BASE.replace("    write: upsert\n", "").replace("    key: [id]\n", "")))
        .isEqualTo(1);
    assertThat(err())
        .contains("sink.delta.sequence-by: sequence-by applies to write: upsert")
        .contains("sink.delta.delete-when: delete-when applies to write: upsert");
  }

  @Test
  void aStatefulPipelineAskingForAnUpsertIsRefused() throws Exception {
    String stateful =
        BASE.replace("checkpoint:", "deduplicate: { keys: [id] }\ncheckpoint:")
            .replace("      key: [id]", "      key: [id]");
    assertThat(validate(stateful)).isEqualTo(1);
    assertThat(err())
        .contains(
            "sink.delta.write: pipeline customers declares deduplicate, but write: upsert is for"
                + " stateless pipelines");
  }

  @Test
  void aDeletePredicateThatDoesNotCompileIsNamed() throws Exception {
    assertThat(validate(BASE.replace("op = 'd'", "op = 'd' AND"))).isEqualTo(1);
    assertThat(err()).contains("sink.delta.delete-when:");
  }
}
