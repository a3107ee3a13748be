package dev.tributary.service.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.service.engine.BatchProgress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgressPrinterTest {
  private static BatchProgress batch(long id, long start, long end, long latest) {
    return new BatchProgress(
        "p",
        id,
        false,
        Instant.parse("2026-11-29T10:00:00Z"),
        end - start,
        end - start - 1,
        1,
        0,
        0,
        100,
        200,
        50,
        Map.of("process", 40L),
        List.of(new BatchProgress.PartitionProgress("t", 0, start, end, latest)),
        id,
        null,
        List.of(),
        Map.of(),
        0,
        0);
  }

  @Test
  void onATerminalOneStatusLineShowsOffsetsDoneOfTheBacklogRateAndEta() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    var printer =
        RunCommand.ProgressPrinter.forStream(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
    printer.batchDone(batch(0, 0, 100, 400));
    printer.batchDone(batch(1, 100, 200, 400));
    printer.finish();
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).startsWith("\rbatch 0 | 100 of 400 offsets (25%)");
    assertThat(out)
        .contains("\rbatch 1 | 200 of 400 offsets (50%)")
        .contains("rec/s")
        .contains("ETA ")
        .contains("t/0@200");
    assertThat(out.chars().filter(c -> c == '\n').count()).isEqualTo(1); // rewritten in place
  }

  @Test
  void otherwiseOneJsonLinePerBatch() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    var printer =
        RunCommand.ProgressPrinter.forStream(
            new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
    printer.batchDone(batch(0, 0, 100, 400));
    printer.batchDone(batch(1, 100, 200, 400));
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1))
        .startsWith("{\"pipeline\":\"p\",\"batchId\":1,")
        .contains("\"startedAt\":\"2026-11-29T10:00:00Z\"")
        .contains("\"phasesMs\":{\"process\":40}")
        .contains("\"endOffset\":200");
  }
}
