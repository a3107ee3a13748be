package dev.tributary.table.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.AppendTransaction;
import dev.tributary.table.DeltaTable;
import dev.tributary.table.Snapshot;
import dev.tributary.table.TableOptions;
import dev.tributary.table.TransactionId;
import dev.tributary.table.interop.KernelReader;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.Test;

/**
 * V2 checkpoints as Delta writes them (PROTOCOL.md, "V2 Spec"): a UUID-named JSON checkpoint
 * holding the table's metadata, its txns, domain metadata and {@code sidecar} actions, the add
 * actions in a Parquet sidecar under {@code _delta_log/_sidecars/}. With the commits below it
 * deleted, the table is only readable through it; Delta Kernel reads the same rows.
 */
class V2CheckpointTest {
  static final StructType SCHEMA =
      StructType.of(
          new StructField("id", PrimitiveType.LONG, false),
          StructField.nullable("name", PrimitiveType.STRING));

  final InMemoryObjectStore store = new InMemoryObjectStore();
  final DeltaTable table = DeltaTable.open(store, TableOptions.defaults());

  @Test
  void aUuidNamedJsonCheckpointWithASidecarReplacesTheCommitsBelowIt() throws IOException {
    table.create(SCHEMA, List.of(), Map.of());
    for (long b = 0; b < 3; b++) {
      try (AppendTransaction tx = table.newAppend(new TransactionId("app", b))) {
        tx.write(new Object[] {b, "n" + b});
        tx.commit(Map.of());
      }
    }
    Snapshot at3 = table.snapshot();
    TableState state = at3.state();
    Protocol v2 = new Protocol(3, 7, Set.of("v2Checkpoint"), Set.of("v2Checkpoint"));

    String sidecar = UUID.randomUUID() + ".parquet";
    byte[] sidecarBytes = sidecar(new ArrayList<>(state.files().values()));
    store.put(LogFiles.SIDECAR_DIR + sidecar, sidecarBytes);
    StringBuilder json = new StringBuilder();
    json.append("{\"checkpointMetadata\":{\"version\":3,\"tags\":{}}}\n");
    json.append(ActionCodec.encode(v2)).append('\n');
    json.append(ActionCodec.encode(state.metadata())).append('\n');
    for (SetTransaction t : state.transactions().values()) {
      json.append(ActionCodec.encode(t)).append('\n');
    }
    json.append(ActionCodec.encode(new DomainMetadata("delta.clustering", "{\"c\":1}", false)))
        .append('\n');
    json.append("{\"sidecar\":{\"path\":\"")
        .append(sidecar)
        .append("\",\"sizeInBytes\":")
        .append(sidecarBytes.length)
        .append(",\"modificationTime\":1,\"tags\":{}}}\n");
    String checkpoint = String.format("_delta_log/%020d.checkpoint.%s.json", 3, UUID.randomUUID());
    store.put(checkpoint, json.toString().getBytes(StandardCharsets.UTF_8));
    assertThat(LogFiles.checkpointVersion(checkpoint)).isEqualTo(3);
    for (long v = 0; v <= 3; v++) {
      store.delete(LogFiles.commit(v));
    }
    store.put(LogFiles.commit(3), ActionCodec.encodeCommit(List.of(v2)));

    DeltaTable fresh = DeltaTable.open(store, TableOptions.defaults());
    Snapshot read = fresh.snapshot();
    assertThat(read.version()).isEqualTo(3);
    assertThat(read.state().files().keySet()).isEqualTo(state.files().keySet());
    assertThat(read.latestTransactionVersion("app")).hasValue(2);
    assertThat(read.state().domains()).containsKey("delta.clustering");
    assertThat(new KernelReader(store).rows()).hasSize(3);

    // the classic V1 checkpoint we write keeps the domain
    new DeltaLog(store).writeCheckpoint(read.state(), 0);
    store.delete(checkpoint);
    assertThat(DeltaTable.open(store, TableOptions.defaults()).snapshot().state().domains())
        .containsKey("delta.clustering");
  }

  @Test
  void namesOfCheckpointFilesAreRecognized() {
    String uuid = UUID.randomUUID().toString();
    assertThat(LogFiles.checkpointVersion("_delta_log/00000000000000000010.checkpoint.parquet"))
        .isEqualTo(10);
    assertThat(
            LogFiles.checkpointVersion(
                "_delta_log/00000000000000000010.checkpoint." + uuid + ".parquet"))
        .isEqualTo(10);
    assertThat(LogFiles.checkpointVersion("_delta_log/00000000000000000010.checkpoint.json"))
        .isEqualTo(-1);
    assertThat(
            LogFiles.checkpointVersion(
                "_delta_log/00000000000000000010.checkpoint.0000000001.0000000003.parquet"))
        .as("multi-part checkpoints are ignored")
        .isEqualTo(-1);
    assertThat(LogFiles.sidecar("s3://b/t/_delta_log/_sidecars/a%20b.parquet"))
        .isEqualTo("_delta_log/_sidecars/a b.parquet");
  }

  /** A sidecar: add rows only, in the checkpoint schema. */
  private static byte[] sidecar(List<AddFile> adds) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    SimpleGroupFactory rows = new SimpleGroupFactory(CheckpointFile.SCHEMA);
    OutputFile out =
        new OutputFile() {
          @Override
          public PositionOutputStream create(long blockSizeHint) {
            return new DelegatingPositionOutputStream(buffer) {
              @Override
              public long getPos() {
                return buffer.size();
              }
            };
          }

          @Override
          public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
          }

          @Override
          public boolean supportsBlockSize() {
            return false;
          }

          @Override
          public long defaultBlockSize() {
            return 0;
          }
        };
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(out)
            .withConf(new PlainParquetConfiguration())
            .withType(CheckpointFile.SCHEMA)
            .build()) {
      for (AddFile a : adds) {
        Group row = rows.newGroup();
        Group g = row.addGroup("add");
        g.append("path", PathCodec.encode(a.path()))
            .append("size", a.size())
            .append("modificationTime", a.modificationTime())
            .append("dataChange", false);
        g.addGroup("partitionValues");
        if (a.stats() != null) {
          g.append("stats", a.stats());
        }
        writer.write(row);
      }
    }
    return buffer.toByteArray();
  }
}
