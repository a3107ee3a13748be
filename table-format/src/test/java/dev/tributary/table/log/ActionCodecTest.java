package dev.tributary.table.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.TableException;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ActionCodecTest {

  @Test
  void writesDeltaFieldNamesOneActionPerLine() {
    Map<String, String> pv = new HashMap<>();
    pv.put("region", null);
    AddFile add =
        new AddFile(
            "region=__HIVE_DEFAULT_PARTITION__/part 1.parquet",
            pv,
            10,
            20,
            true,
            "{\"numRecords\":1}",
            Map.of());
    byte[] commit =
        ActionCodec.encodeCommit(List.of(new SetTransaction("app", 7, 99L), add, Protocol.ours()));

    String[] lines = new String(commit, StandardCharsets.UTF_8).split("\n");
    assertThat(lines)
        .containsExactly(
            "{\"txn\":{\"appId\":\"app\",\"version\":7,\"lastUpdated\":99}}",
            "{\"add\":{\"path\":\"region=__HIVE_DEFAULT_PARTITION__/part%201.parquet\","
                + "\"partitionValues\":{\"region\":null},\"size\":10,\"modificationTime\":20,"
                + "\"dataChange\":true,\"stats\":\"{\\\"numRecords\\\":1}\"}}",
            "{\"protocol\":{\"minReaderVersion\":1,\"minWriterVersion\":2}}");
  }

  @Test
  void roundTripsEveryActionKind() {
    List<Action> actions =
        List.of(
            new CommitInfo(Map.of("operation", "WRITE", "txnId", "u-1")),
            new Protocol(3, 7, Set.of("vacuumProtocolCheck"), Set.of("appendOnly")),
            new Metadata(
                "id-1",
                "t",
                null,
                Metadata.Format.parquet(),
                "{\"type\":\"struct\",\"fields\":[]}",
                List.of("a", "b"),
                Map.of("k", "v"),
                5L),
            new AddFile("a=1/ü é%.parquet", Map.of("a", "1"), 1, 2, false, null, Map.of("t", "x")),
            new RemoveFile("a=1/old.parquet", 3L, false, true, Map.of("a", "1"), 4L),
            new SetTransaction("p", 1, null));

    List<Action> back = ActionCodec.decodeCommit("loc", "f", ActionCodec.encodeCommit(actions));

    assertThat(back).isEqualTo(actions);
    assertThat(((CommitInfo) back.get(0)).txnId()).contains("u-1");
  }

  @Test
  void skipsActionsWeDoNotModel() {
    String commit =
        "{\"domainMetadata\":{\"domain\":\"d\",\"configuration\":\"{}\",\"removed\":false}}\n"
            + "{\"cdc\":{\"path\":\"_change_data/x.parquet\",\"partitionValues\":{},\"size\":1,\"dataChange\":false}}\n"
            + "\n{\"txn\":{\"appId\":\"a\",\"version\":1}}\n";

    List<Action> actions =
        ActionCodec.decodeCommit("loc", "f", commit.getBytes(StandardCharsets.UTF_8));

    assertThat(actions)
        .as("domains are kept (every writer must), cdc files skipped")
        .containsExactly(new DomainMetadata("d", "{}", false), new SetTransaction("a", 1, null));
  }

  @Test
  void truncatedLineIsAnErrorNamingFileAndLine() {
    String commit = "{\"txn\":{\"appId\":\"a\",\"version\":1}}\n{\"add\":{\"path\":\"x\",\"si";

    assertThatThrownBy(
            () ->
                ActionCodec.decodeCommit(
                    "s3://b/t",
                    "_delta_log/00000000000000000003.json",
                    commit.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("s3://b/t")
        .hasMessageContaining("_delta_log/00000000000000000003.json line 2 is not a valid action")
        .hasMessageContaining("restore the file");
  }

  @Test
  void missingRequiredFieldIsAnError() {
    String commit = "{\"add\":{\"path\":\"x\",\"partitionValues\":{},\"modificationTime\":1}}";

    assertThatThrownBy(
            () ->
                ActionCodec.decodeCommit("loc", "f.json", commit.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("f.json line 1")
        .hasMessageContaining("field 'size' is missing");
  }

  @Test
  void deletionVectorsAndRowTrackingFieldsRoundTrip() {
    DeletionVectorDescriptor dv =
        new DeletionVectorDescriptor(
            DeletionVectorDescriptor.StorageType.RELATIVE, "ab^-aqEH.-t@S}K{vb[*k^", 4, 40, 6);
    AddFile add = new AddFile("p", Map.of(), 10, 20, true, null, Map.of(), dv, 4071L, 41L);
    String line = ActionCodec.encode(add);
    assertThat(line)
        .contains(
            "\"deletionVector\":{\"storageType\":\"u\",\"pathOrInlineDv\":\"ab^-aqEH.-t@S}K{vb[*k^\","
                + "\"offset\":4,\"sizeInBytes\":40,\"cardinality\":6}")
        .contains("\"baseRowId\":4071,\"defaultRowCommitVersion\":41");
    RemoveFile remove = add.toRemove(30, true);
    List<Action> read =
        ActionCodec.decodeCommit("loc", "f.json", ActionCodec.encodeCommit(List.of(add, remove)));
    assertThat(read).containsExactly(add, remove);
    assertThat(((RemoveFile) read.get(1)).logicalKey()).isEqualTo(add.logicalKey());
    assertThat(add.logicalKey()).isNotEqualTo("p").startsWith("p");
  }

  @Test
  void anIncompleteDeletionVectorIsRefused() {
    String commit =
        "{\"add\":{\"path\":\"x\",\"partitionValues\":{},\"size\":1,\"modificationTime\":1,"
            + "\"dataChange\":true,\"deletionVector\":{\"storageType\":\"u\"}}}";

    assertThatThrownBy(
            () ->
                ActionCodec.decodeCommit("loc", "f.json", commit.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("f.json line 1")
        .hasMessageContaining("field 'pathOrInlineDv' is missing");
  }

  @Test
  void pathEncodingRoundTripsAndNeverLooksLikeAScheme() {
    assertThat(PathCodec.encode("ts=2024-01-01 10:00/a+b.parquet"))
        .isEqualTo("ts=2024-01-01%2010%3A00/a%2Bb.parquet");
    assertThat(PathCodec.decode("ts=2024-01-01%2010%3A00/a%2Bb.parquet"))
        .isEqualTo("ts=2024-01-01 10:00/a+b.parquet");
    assertThat(PathCodec.decode("a+b")).isEqualTo("a+b");
    assertThat(PathCodec.decode(PathCodec.encode("ü/€/😀"))).isEqualTo("ü/€/😀");
    assertThatThrownBy(() -> PathCodec.decode("bad%2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated percent escape in path 'bad%2'");
  }
}
