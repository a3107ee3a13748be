package dev.tributary.service.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReplayedRecordsTest {
  @Test
  void offsetsAreWrittenAsRangesPerPartitionAndReadBackInOrder() {
    List<RecordKey> records =
        List.of(
            new RecordKey("orders", 1, 3),
            new RecordKey("orders", 0, 9),
            new RecordKey("orders", 0, 5),
            new RecordKey("orders", 0, 7),
            new RecordKey("orders", 0, 8),
            new RecordKey("orders.v2", 0, 0),
            new RecordKey("orders", 0, 8));

    String text = ReplayedRecords.encode(records);

    assertThat(text).isEqualTo("orders.v2:0=0;orders:0=5,7-9;orders:1=3");
    assertThat(ReplayedRecords.decode(text))
        .containsExactly(
            new RecordKey("orders.v2", 0, 0),
            new RecordKey("orders", 0, 5),
            new RecordKey("orders", 0, 7),
            new RecordKey("orders", 0, 8),
            new RecordKey("orders", 0, 9),
            new RecordKey("orders", 1, 3));
  }

  @Test
  void noRecordsIsTheEmptyText() {
    assertThat(ReplayedRecords.encode(List.of())).isEmpty();
    assertThat(ReplayedRecords.decode("")).isEmpty();
  }

  @Test
  void aTextNotInTheFormatIsRefusedNamingThePart() {
    assertThatThrownBy(() -> ReplayedRecords.decode("orders:0=1;orders=2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'orders=2'");
    assertThatThrownBy(() -> ReplayedRecords.decode("orders:x=2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'orders:x=2'");
  }
}
