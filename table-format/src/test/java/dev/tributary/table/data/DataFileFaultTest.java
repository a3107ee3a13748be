package dev.tributary.table.data;

import static dev.tributary.table.data.TestRows.row;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.storage.testing.FaultInjectingObjectStore;
import dev.tributary.storage.testing.FaultInjectingObjectStore.Operation;
import dev.tributary.storage.testing.InMemoryObjectStore;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class DataFileFaultTest {
  private static final StructType SCHEMA =
      StructType.of(
          StructField.nullable("id", PrimitiveType.LONG),
          StructField.nullable("region", PrimitiveType.STRING));

  private final InMemoryObjectStore memory = new InMemoryObjectStore();
  private final FaultInjectingObjectStore store = new FaultInjectingObjectStore(memory);

  @Test
  void aFailedPublishFailsFinishAndAbortDiscardsTheRest() throws Exception {
    store.failNext(Operation.CREATE, 1);
    PartitionedDataWriter writer =
        DataFiles.newWriter(store, SCHEMA, List.of("region"), DataWriteOptions.defaults());
    writer.write(row(1L, "eu"));
    writer.write(row(2L, "us"));

    assertThatThrownBy(writer::finish)
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("Could not write data file 'region=eu/part-00000-")
        .hasMessageContaining(FaultInjectingObjectStore.MESSAGE_PREFIX)
        .hasMessageContaining("abort this writer");
    assertThatThrownBy(writer::finish)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("This data writer is failed");
    writer.abort();

    assertThat(memory.list("")).isEmpty();
  }

  @Test
  void aPublishThatLandedButReportedFailureIsLeftForVacuum() throws Exception {
    store.succeedThenThrow(Operation.CREATE, 1);
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, SCHEMA, List.of(), DataWriteOptions.defaults())) {
      writer.write(row(1L, "eu"));
      assertThatThrownBy(writer::finish)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("was done, then failed");
    }
    // The writer never deletes: the object may be visible, and only vacuum may remove it.
    assertThat(memory.list("")).hasSize(1);
  }

  @Test
  void aReadFailureNamesTheFile() throws Exception {
    DataFile file;
    try (PartitionedDataWriter writer =
        DataFiles.newWriter(store, SCHEMA, List.of(), DataWriteOptions.defaults())) {
      writer.write(row(1L, "eu"));
      file = writer.finish().get(0);
    }
    store.failNext(Operation.READ, 1);

    try (CloseableIterator<Object[]> rows = DataFiles.read(store, file, SCHEMA)) {
      assertThatThrownBy(rows::hasNext)
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageStartingWith(
              "Could not read data file '" + file.path() + "' in " + store.location())
          .hasMessageContaining(FaultInjectingObjectStore.MESSAGE_PREFIX);
    }
    assertThat(DataFiles.readAll(store, file, SCHEMA)).hasSize(1);
  }
}
