package dev.tributary.service.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.config.PipelineParser;
import dev.tributary.config.PipelineSpec;
import dev.tributary.service.engine.QuarantineRows;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.TableOptions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The quarantine table of a pipeline with a stream-stream join has an {@code input} column after
 * the Kafka provenance; the table a pipeline wrote before it had the join gets the column at start
 * (older rows read null), and a single-input pipeline's table keeps its columns.
 */
class JoinedQuarantineTableTest {
  private static final String PLAIN =
      """
      pipeline: attribution
      source: { kafka: { bootstrap-servers: "localhost:1", topics: [clicks] } }
      format: { json: { schema: { user_id: string, event_ts: timestamp } } }
      %s
      sink: { delta: { path: /memory/sink } }
      quarantine: { delta: { path: /memory/quarantine } }
      checkpoint: /memory/checkpoint
      """;

  private static final String JOIN =
      """
      join:
        - stream:
            source: { kafka: { topics: [purchases] } }
            format: { json: { schema: { user_id: string, event_ts: timestamp } } }
            prefix: p_
          on: [user_id]
      """;

  private static PipelineSpec spec(String join) {
    return PipelineParser.parse(PLAIN.formatted(join), "attribution.yaml", Map.of());
  }

  @Test
  void aJoinedPipelinesQuarantineTableHasTheInputColumnAddedToAnOlderTable() throws Exception {
    ObjectStore store = new InMemoryObjectStore();
    DeltaTable table = DeltaTable.open(store, TableOptions.defaults());
    table.create(QuarantineRows.SCHEMA, List.of(), Map.of()); // written before the join

    PipelineFactory.quarantine(spec(""), store);
    assertThat(table.snapshot().schema()).isEqualTo(QuarantineRows.SCHEMA);

    PipelineFactory.quarantine(spec(JOIN), store);
    assertThat(table.snapshot().schema().fieldNames())
        .isEqualTo(QuarantineRows.JOINED_SCHEMA.fieldNames())
        .endsWith("quarantined_at", "input");

    long version = table.snapshot().version();
    PipelineFactory.quarantine(spec(JOIN), store); // a restart adds nothing more
    assertThat(table.snapshot().version()).isEqualTo(version);
  }
}
