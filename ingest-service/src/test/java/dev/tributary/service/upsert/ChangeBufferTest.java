package dev.tributary.service.upsert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.MergeTransaction;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a batch's changes collapse to one per key (docs/DESIGN.md, "Upsert"). */
class ChangeBufferTest {
  static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("v", PrimitiveType.STRING),
          StructField.nullable("seq", PrimitiveType.LONG),
          StructField.nullable("_kafka_partition", PrimitiveType.INTEGER),
          StructField.nullable("_kafka_offset", PrimitiveType.LONG));

  static Object[] row(long id, String v, Long seq, int partition, long offset) {
    return new Object[] {id, v, seq, partition, offset};
  }

  static String describe(MergeTransaction.Change c) {
    return c.kind()
        + " "
        + c.row()[0]
        + "="
        + c.row()[1]
        + (c.order() == MergeTransaction.Order.ALWAYS ? " always" : "");
  }

  @Test
  void withoutASequenceTheHighestOffsetWinsEvenAcrossPartitions() {
    ChangeBuffer b = new ChangeBuffer(SCHEMA, List.of("id"), null);
    b.upsert(row(1, "p0@5", null, 0, 5));
    b.upsert(row(1, "p1@3", null, 1, 3)); // arrives later, from another partition, lower offset
    b.upsert(row(2, "a", null, 0, 6));
    b.upsert(row(2, "b", null, 0, 7));
    assertThat(b.changes().stream().map(ChangeBufferTest::describe))
        .containsExactly("UPSERT 1=p0@5", "UPSERT 2=b");
    assertThat(b.olderInBatch()).isEqualTo(1);
    assertThat(b.received()).isEqualTo(4);
  }

  @Test
  void theHighestSequenceWinsTiesGoToTheHigherOffset() {
    ChangeBuffer b = new ChangeBuffer(SCHEMA, List.of("id"), "seq");
    b.upsert(row(1, "seq5", 5L, 0, 0));
    b.upsert(row(1, "seq3", 3L, 0, 1)); // older, replayed out of order
    b.upsert(row(1, "seq5-again", 5L, 0, 2));
    b.delete(row(2, "deleted", 9L, 0, 3));
    b.upsert(row(2, "stale", 8L, 0, 4));
    assertThat(b.changes().stream().map(ChangeBufferTest::describe))
        .containsExactly("UPSERT 1=seq5-again", "DELETE 2=deleted");
    assertThat(b.olderInBatch()).isEqualTo(2);
  }

  @Test
  void aTombstoneDeletesAtItsPlaceAndWhatFollowsItAppliesWhateverTheTableHolds() {
    ChangeBuffer b = new ChangeBuffer(SCHEMA, List.of("id"), "seq");
    b.upsert(row(1, "seq5", 5L, 0, 0));
    b.delete(row(1, null, null, 0, 1)); // tombstone: deletes, takes sequence 5
    b.upsert(row(1, "seq4", 4L, 0, 2)); // older than the row the tombstone deleted: loses
    b.delete(row(2, null, null, 0, 3)); // tombstone first
    b.upsert(row(2, "reinserted", 1L, 0, 4)); // delete then insert = insert, whatever the table
    assertThat(b.changes().stream().map(ChangeBufferTest::describe))
        .containsExactly("DELETE 1=null", "UPSERT 2=reinserted always");
    assertThat(b.olderInBatch()).isEqualTo(1);
  }

  @Test
  void binaryAndCompositeKeysCompareByValue() {
    StructType schema =
        StructType.of(
            StructField.nullable("a", PrimitiveType.BINARY),
            StructField.nullable("b", PrimitiveType.STRING));
    ChangeBuffer b = new ChangeBuffer(schema, List.of("a", "b"), null);
    b.upsert(new Object[] {new byte[] {1}, "x"});
    b.upsert(new Object[] {new byte[] {1}, "x"});
    b.upsert(new Object[] {new byte[] {1}, "y"});
    assertThat(b.keys()).isEqualTo(2);
  }
}
