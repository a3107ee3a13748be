package dev.tributary.config;

import static dev.tributary.config.PipelineParserErrorsTest.errors;
import static dev.tributary.config.PipelineValidationTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code sink.delta.write: upsert} and its keys: defaults, values, errors at their line. */
class UpsertConfigTest {

  /** Lines 1-17: a stateless pipeline; the sink section is added by each test from line 18. */
  static final String HEAD =
      """
      pipeline: customers
      source:
        kafka:
          bootstrap-servers: localhost:9092
          topics: [customers]
      format:
        json:
          schema:
            customer_id: long
            name: string
            updated_at: timestamp
            version_text: string
            address.city: string
      transform:
        - derive: { op: "'u'" }
      checkpoint: /c/customers
      output-mode: append
      """;

  static String sink(String keys) {
    return HEAD + "sink:\n  delta:\n    path: /t/customers\n" + keys;
  }

  @Test
  void appendIsTheDefault() {
    assertThat(parse(sink("")).sink().upsert()).isEmpty();
    assertThat(parse(sink("    write: append\n")).sink().upsert()).isEmpty();
  }

  @Test
  void readsEveryUpsertKeyWithItsDefaults() {
    DeltaSinkSpec minimal = parse(sink("    write: upsert\n    key: [customer_id]\n")).sink();
    assertThat(minimal.upsert())
        .contains(
            new UpsertSpec(
                List.of("customer_id"),
                Optional.empty(),
                Optional.empty(),
                UpsertSpec.MergeStrategy.COPY_ON_WRITE,
                UpsertSpec.History.NONE));
    DeltaSinkSpec full =
        parse(
                sink(
                    """
                        write: upsert
                        key: [customer_id, name]
                        sequence-by: updated_at
                        delete-when: "op = 'd'"
                        merge-strategy: copy-on-write
                        history: none
                    """))
            .sink();
    assertThat(full.upsert())
        .contains(
            new UpsertSpec(
                List.of("customer_id", "name"),
                Optional.of("updated_at"),
                Optional.of("op = 'd'"),
                UpsertSpec.MergeStrategy.COPY_ON_WRITE,
                UpsertSpec.History.NONE));
  }

  @Test
  void deletionVectorsAreAcceptedForOneRowPerKeyAndRefusedWithHistory() {
    assertThat(
            parse(
                    sink(
                        """
                            write: upsert
                            key: [customer_id]
                            merge-strategy: deletion-vectors
                        """))
                .sink()
                .upsert()
                .orElseThrow()
                .mergeStrategy())
        .isEqualTo(UpsertSpec.MergeStrategy.DELETION_VECTORS);
    assertThat(
            errors(
                sink(
                    """
                        write: upsert
                        key: [customer_id]
                        sequence-by: updated_at
                        merge-strategy: deletion-vectors
                        history: scd2
                    """)))
        .containsExactly(
            "orders.yaml:24:21: sink.delta.merge-strategy: merge-strategy: deletion-vectors does"
                + " not apply to history: scd2, whose merges close each replaced version by"
                + " rewriting it; remove merge-strategy (copy-on-write), or remove history: scd2"
                + " to keep one current row per key");
  }

  @Test
  void historyScd2IsReadWithATimestampSequence() {
    DeltaSinkSpec scd2 =
        parse(
                sink(
                    """
                        write: upsert
                        key: [customer_id]
                        sequence-by: updated_at
                        history: scd2
                    """))
            .sink();
    assertThat(scd2.upsert().orElseThrow().history()).isEqualTo(UpsertSpec.History.SCD2);
    DeltaSinkSpec byKafkaTime =
        parse(
                sink(
                    """
                        write: upsert
                        key: [customer_id]
                        sequence-by: _kafka_timestamp
                        history: scd2
                    """))
            .sink();
    assertThat(byKafkaTime.upsert().orElseThrow().sequenceBy())
        .as("the Kafka timestamp is a timestamp column too")
        .contains("_kafka_timestamp");
  }

  @Test
  void historyScd2NeedsATimestampSequenceAndFreeColumnNames() {
    assertThat(errors(sink("    write: upsert\n    key: [customer_id]\n    history: scd2\n")))
        .containsExactly(
            "orders.yaml:23:14: sink.delta.history: history: scd2 needs sequence-by naming a"
                + " timestamp column: each version is valid from its change's sequence-by value"
                + " (_valid_from) to the next change's (_valid_to); add e.g. sequence-by: _source_ts"
                + " (envelope: debezium: the time of the change in the database) or sequence-by:"
                + " _kafka_timestamp (the record's timestamp)");
    assertThat(
            errors(
                sink(
                    """
                        write: upsert
                        key: [customer_id]
                        sequence-by: _kafka_offset
                        history: scd2
                    """)))
        .singleElement()
        .asString()
        .startsWith(
            "orders.yaml:23:18: sink.delta.sequence-by: sequence-by column '_kafka_offset' is a"
                + " long, but history: scd2 takes each version's _valid_from and _valid_to from it");
    String taken =
        sink("""
                    write: upsert
                    key: [customer_id]
                    sequence-by: updated_at
                    history: scd2
                """)
            .replace("derive: { op: \"'u'\" }", "derive: { op: \"'u'\", _is_current: \"true\" }");
    assertThat(errors(taken))
        .containsExactly(
            "orders.yaml:24:14: sink.delta.history: history: scd2 adds the column '_is_current'"
                + " (with _valid_from, _valid_to, _is_current), but the output already has a column"
                + " of that name; rename it (select or derive another name), or remove history:"
                + " scd2");
  }

  @Test
  void upsertKeysOnAnAppendingSinkAreRefusedAtTheirLine() {
    assertThat(errors(sink("    delete-when: \"op = 'd'\"\n")))
        .containsExactly(
            "orders.yaml:21:5: sink.delta.delete-when: delete-when applies to write: upsert, but this"
                + " sink appends (write: append is the default), where it would be ignored; add write:"
                + " upsert with key: [<key columns>], or remove delete-when");
    assertThat(errors(sink("    write: append\n    key: [customer_id]\n")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:22:5: sink.delta.key: key applies to write: upsert");
  }

  @Test
  void anUpsertNeedsAKeyThatIsATopLevelColumn() {
    assertThat(errors(sink("    write: upsert\n")))
        .singleElement()
        .asString()
        .isEqualTo(
            "orders.yaml:19:3: sink.delta.key: missing required key 'key'; add it, for example"
                + " key: [customer_id]");
    assertThat(errors(sink("    write: upsert\n    key: [custmer_id]\n")))
        .containsExactly(
            "orders.yaml:22:11: sink.delta.key[0]: key column 'custmer_id' is not a column of the"
                + " pipeline; did you mean 'customer_id'?");
    assertThat(errors(sink("    write: upsert\n    key: [address.city]\n")))
        .singleElement()
        .asString()
        .contains("key column 'address.city' is a nested field");
    assertThat(errors(sink("    write: upsert\n    key: []\n")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:22:10: sink.delta.key:");
  }

  @Test
  void theKafkaAndDerivedColumnsCanBeKeysAndSequences() {
    assertThat(
            parse(sink("    write: upsert\n    key: [op]\n    sequence-by: _kafka_offset\n"))
                .sink()
                .upsert()
                .orElseThrow()
                .sequenceBy())
        .contains("_kafka_offset");
  }

  @Test
  void aSequenceColumnMustOrder() {
    assertThat(
            errors(
                sink("    write: upsert\n    key: [customer_id]\n    sequence-by: version_text\n")))
        .containsExactly(
            "orders.yaml:23:18: sink.delta.sequence-by: sequence-by column 'version_text' is a"
                + " string, which cannot order the changes of a key; use an int, long, timestamp or"
                + " date column (derive one, e.g. derive: { version: \"CAST(version_text AS"
                + " long)\" })");
  }

  @Test
  void anUnknownStrategyOrHistoryNamesTheChoices() {
    assertThat(
            errors(
                sink(
                    "    write: upsert\n    key: [customer_id]\n    merge-strategy: merge-on-read\n")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:23:21: sink.delta.merge-strategy:")
        .contains("copy-on-write", "deletion-vectors");
    assertThat(errors(sink("    write: upserts\n")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:21:12: sink.delta.write:")
        .contains("append", "upsert");
  }

  @Test
  void aStatefulPipelineCannotUpsert() {
    String yaml =
        sink("    write: upsert\n    key: [customer_id]\n")
            + "aggregate: { group-by: [customer_id], measures: { n: count() } }\n";
    assertThat(errors(yaml.replace("output-mode: append", "output-mode: update")))
        .containsExactly(
            "orders.yaml:21:12: sink.delta.write: pipeline customers declares aggregate, but write:"
                + " upsert is for stateless pipelines (each row is the new value of its key); an"
                + " aggregation already merges its results by key with output-mode: update, so remove"
                + " write: upsert (and its keys) or the aggregate section");
  }

  @Test
  void anUpsertHasOneWriterAndNoOutputMode() {
    assertThat(
            errors(
                sink("    write: upsert\n    key: [customer_id]\n")
                    .replace("topics: [customers]", "topics: [customers]\n    assignment: group")))
        .singleElement()
        .asString()
        .contains("sink.delta.write: pipeline customers shares its partitions (assignment: group)");
    assertThat(
            errors(
                sink("    write: upsert\n    key: [customer_id]\n")
                    .replace("output-mode: append", "output-mode: update")))
        .singleElement()
        .asString()
        .startsWith("orders.yaml:17:14: output-mode: output-mode update is for aggregations;");
  }
}
