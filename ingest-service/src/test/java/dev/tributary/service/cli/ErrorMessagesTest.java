package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.OffsetRange;
import dev.tributary.checkpoint.SourcePartition;
import dev.tributary.service.engine.BatchFailedException;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ErrorMessagesTest {

  @Test
  void aBatchFailureReadsAsOneParagraphNamingTheBatchThenTheCause() {
    BatchFailedException e =
        new BatchFailedException(
            "orders",
            7,
            Map.of(new SourcePartition("orders", 0), new OffsetRange(100, 200)),
            new IOException(
                "Could not write data file 'part-00000.parquet' in s3://t/orders: Slow Down"));
    assertThat(ErrorMessages.paragraph(e))
        .isEqualTo(
            "tributary: Pipeline orders: batch 7 (orders/0 offsets"
                + " [100, 200)) failed; it is replayed with the same offsets at the next start (a table that already"
                + " committed it skips it). Caused by: Could not write data file 'part-00000.parquet' in s3://t/orders:"
                + " Slow Down (set TRIBUTARY_DEBUG=1 for the stack trace)");
  }
}
