package dev.tributary.service.stateful;

import dev.tributary.service.parse.ParseResult;
import dev.tributary.service.parse.RecordDecoder;
import dev.tributary.table.types.StructType;
import java.util.Objects;

/**
 * The stream join's second input when it is a Delta table ({@code join[0].stream.source.delta}):
 * its rows arrive typed, in the table's schema, so nothing is decoded. It stands where a Kafka
 * input's {@link RecordDecoder} stands in {@link StreamJoinBinding#rightParser}, so that the
 * binding keeps one shape for both kinds: {@link #schema} is the table's (read at start), and a
 * record handed to it is refused.
 *
 * @param location the table's location, named in provenance and messages
 * @param tableSchema the table's columns when the run started, unprefixed
 */
public record TableRowsInput(String location, StructType tableSchema) implements RecordDecoder {

  /** Checks that no part is null. */
  public TableRowsInput {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(tableSchema, "tableSchema");
  }

  @Override
  public StructType schema() {
    return tableSchema;
  }

  /** Refused: a table input delivers typed rows, never records. */
  @Override
  public ParseResult decode(String topic, int partition, long offset, byte[] key, byte[] value) {
    throw new UnsupportedOperationException(
        "join[0]'s input is the table " + location + ": it delivers rows, not Kafka records");
  }
}
