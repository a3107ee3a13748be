package dev.tributary.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.checkpoint.state.StateStore;
import dev.tributary.storage.ObjectStore;
import dev.tributary.storage.testing.InMemoryObjectStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Golden files: the exact bytes documented in docs/CHECKPOINT_FORMAT.md. A change here is a format
 * change: it needs a new version and a documentation update, not just a new expectation.
 */
class FileFormatTest {
  private final ObjectStore store = new InMemoryObjectStore();

  private String text(String key) throws Exception {
    return new String(store.read(key), StandardCharsets.UTF_8);
  }

  @Test
  void offsetsAndCommitEntriesAreWrittenExactlyAsDocumented() throws Exception {
    Checkpoint checkpoint = Checkpoint.open(store, "orders-hourly", Map.of());
    for (long n = 0; n < 7; n++) {
      checkpoint.writeOffsets(
          new OffsetsEntry(n, Map.of(), OptionalLong.empty(), Instant.EPOCH, Map.of()));
      checkpoint.writeCommit(new CommitEntry(n, OptionalLong.empty(), Instant.EPOCH, Map.of()));
    }
    checkpoint.writeOffsets(
        new OffsetsEntry(
            7,
            Map.of(
                new SourcePartition("orders", 1),
                new OffsetRange(350, 350),
                new SourcePartition("orders", 0),
                new OffsetRange(700, 800)),
            OptionalLong.of(1764403200000000L),
            OptionalLong.of(1764403140000000L),
            Instant.parse("2026-11-29T08:00:07Z"),
            Map.of()));
    checkpoint.writeCommit(
        new CommitEntry(
            7,
            OptionalLong.of(1764403201000000L),
            Instant.parse("2026-11-29T08:00:08.5Z"),
            Map.of("table-version", "42")));

    assertThat(text("offsets/00000000000000000007"))
        .isEqualTo(
            "v1\n"
                + "{\"batchId\":7,\"plannedAt\":\"2026-11-29T08:00:07Z\",\"watermarkMicros\":1764403200000000,"
                + "\"lateWatermarkMicros\":1764403140000000,\"ranges\":[{\"topic\":\"orders\",\"partition\":0,\"start\":700,\"end\":800},"
                + "{\"topic\":\"orders\",\"partition\":1,\"start\":350,\"end\":350}],\"extras\":{}}\n");
    assertThat(text("commits/00000000000000000007"))
        .isEqualTo(
            "v1\n"
                + "{\"batchId\":7,\"committedAt\":\"2026-11-29T08:00:08.500Z\","
                + "\"nextWatermarkMicros\":1764403201000000,\"extras\":{\"table-version\":\"42\"}}\n");
  }

  @Test
  void anOffsetsEntryWithoutALateWatermarkJudgesLateRowsByTheWatermarkItApplies() throws Exception {
    // Written by releases before the two watermarks: one watermark for eviction and late rows.
    Checkpoint checkpoint = Checkpoint.open(store, "orders-hourly", Map.of());
    store.put(
        "offsets/00000000000000000000",
        ("v1\n{\"batchId\":0,\"plannedAt\":\"2026-11-29T08:00:07Z\","
                + "\"watermarkMicros\":1764403200000000,\"ranges\":[],\"extras\":{}}\n")
            .getBytes(StandardCharsets.UTF_8));

    OffsetsEntry entry = checkpoint.recover().latestOffsets().orElseThrow();

    assertThat(entry.watermarkMicros()).hasValue(1764403200000000L);
    assertThat(entry.lateWatermarkMicros()).hasValue(1764403200000000L);
  }

  @Test
  void leaseFilesAreWrittenExactlyAsDocumented() throws Exception {
    MutableClock clock = new MutableClock(Instant.parse("2026-11-29T08:00:00.120Z"));
    LeaseOwner owner =
        new LeaseOwner(
            "3f2a1c9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b",
            "ip-10-0-1-7",
            4242,
            Optional.of(Instant.parse("2026-11-29T07:59:58.310Z")),
            Optional.of("8c5e9d1a-7f3b-4c2e-a1d0-6b9e8f7a5c4d"),
            Optional.of("pid:[4026531836]"));
    CheckpointLease lease =
        CheckpointLease.acquire(
            store,
            "orders-hourly",
            new LeaseSettings(Duration.ofSeconds(30), clock),
            owner,
            (name, interval, renewal) -> () -> {});
    clock.advance(Duration.ofSeconds(10));
    lease.renew();

    String held =
        "v1\n"
            + "{\"epoch\":0,\"pipelineId\":\"orders-hourly\",\"owner\":{\"id\":\"3f2a1c9e-5b7d-4e8f-9a0b-1c2d3e4f5a6b\","
            + "\"host\":\"ip-10-0-1-7\",\"pid\":4242,\"processStartedAt\":\"2026-11-29T07:59:58.310Z\","
            + "\"bootId\":\"8c5e9d1a-7f3b-4c2e-a1d0-6b9e8f7a5c4d\",\"pidNamespace\":\"pid:[4026531836]\"},"
            + "\"acquiredAt\":\"2026-11-29T08:00:00.120Z\",\"renewedAt\":\"2026-11-29T08:00:10.120Z\","
            + "\"expiresAt\":\"2026-11-29T08:00:40.120Z\",\"duration\":\"PT30S\"}\n";
    assertThat(text("lease/00000000000000000000")).isEqualTo(held);

    clock.advance(Duration.ofSeconds(5));
    lease.close();

    assertThat(text("lease/00000000000000000000"))
        .isEqualTo(
            held.replace(
                "\"duration\":\"PT30S\"}",
                "\"duration\":\"PT30S\",\"releasedAt\":\"2026-11-29T08:00:15.120Z\"}"));
  }

  @Test
  void metadataIsWrittenExactlyAsDocumented() throws Exception {
    CheckpointMetadata m =
        Checkpoint.open(
                store,
                "orders-hourly",
                Map.of("window", "1h", "source", "orders", "group-by", "customer_id"))
            .metadata();

    assertThat(text("metadata/00000000000000000001"))
        .isEqualTo(
            "v1\n"
                + "{\"formatVersion\":1,\"version\":1,\"pipelineId\":\"orders-hourly\",\"createdAt\":\""
                + m.createdAt()
                + "\",\"writtenAt\":\""
                + m.writtenAt()
                + "\",\"identity\":"
                + "{\"group-by\":\"customer_id\",\"source\":\"orders\",\"window\":\"1h\"},"
                + "\"checkpointId\":\""
                + m.checkpointId().orElseThrow()
                + "\"}\n");
  }

  @Test
  void metadataWithoutACheckpointIdIsReadAsALegacyCheckpoint() throws Exception {
    // Written by releases before checkpoint ids: its tables are keyed by the pipeline id alone.
    store.put(
        "metadata/00000000000000000001",
        ("v1\n{\"formatVersion\":1,\"version\":1,"
                + "\"pipelineId\":\"orders-hourly\",\"createdAt\":\"2026-11-29T08:00:00.120Z\","
                + "\"writtenAt\":\"2026-11-29T08:00:00.120Z\",\"identity\":{\"source\":\"orders\"}}\n")
            .getBytes(StandardCharsets.UTF_8));

    CheckpointMetadata m =
        Checkpoint.open(store, "orders-hourly", Map.of("source", "orders")).metadata();

    assertThat(m.checkpointId()).isEmpty();
  }

  @Test
  void stateChangelogIsWrittenExactlyAsDocumented(@TempDir Path dir) throws Exception {
    try (StateStore state = StateStore.open(store, "op", -1, dir)) {
      for (long v = 0; v < 3; v++) {
        state.commit(v);
      }
      state.put(b("k2"), b("x"));
      state.delete(b("k2"));
      state.put(b("k1"), b("v1"));
      state.put(b("r1"), b(""));
      state.deleteRange(b("r"), b("s"));
      state.delete(b("absent")); // not recorded: it changes nothing
      state.commit(3);
    }

    byte[] file = store.read("state/op/00000000000000000003.delta");

    // format 2: the operations in the order they were made
    String body =
        "5452425354415445"
            + "00000002"
            + "44"
            + "0000000000000003"
            + "01"
            + "00000002"
            + "6b32"
            + "00000001"
            + "78"
            + "02"
            + "00000002"
            + "6b32"
            + "01"
            + "00000002"
            + "6b31"
            + "00000002"
            + "7631"
            + "01"
            + "00000002"
            + "7231"
            + "00000000"
            + "03"
            + "00000001"
            + "72"
            + "00000001"
            + "73"
            + "00"
            + "0000000000000005";
    byte[] bodyBytes = HexFormat.of().parseHex(body);
    CRC32C crc = new CRC32C();
    crc.update(bodyBytes);
    String expected =
        body
            + HexFormat.of().formatHex(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    assertThat(HexFormat.of().formatHex(file)).isEqualTo(expected);
  }

  @Test
  void stateChangelogsOfFormatOneAreStillRead(@TempDir Path dir) throws Exception {
    // version 0 as the first release wrote it: each key once, in key order
    String body =
        "5452425354415445"
            + "00000001"
            + "44"
            + "0000000000000000"
            + "01"
            + "00000002"
            + "6b31"
            + "00000002"
            + "7631"
            + "02"
            + "00000002"
            + "6b32"
            + "00"
            + "0000000000000002";
    byte[] bodyBytes = HexFormat.of().parseHex(body);
    CRC32C crc = new CRC32C();
    crc.update(bodyBytes);
    store.put(
        "state/op/00000000000000000000.delta",
        ByteBuffer.allocate(bodyBytes.length + 4)
            .put(bodyBytes)
            .putInt((int) crc.getValue())
            .array());

    try (StateStore state = StateStore.open(store, "op", 0, dir)) {
      assertThat(state.get(b("k1"))).isEqualTo(b("v1"));
      assertThat(state.metrics().keys()).isEqualTo(1);
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
