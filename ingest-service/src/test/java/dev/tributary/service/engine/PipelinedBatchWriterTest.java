package dev.tributary.service.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class PipelinedBatchWriterTest {
  /** Records what reaches it, and on which thread; can fail at a given row. */
  private static class Recording implements TableSink.BatchWriter {
    final List<Object> rows = new ArrayList<>();
    final long failAt;
    Map<String, String> committed;
    boolean closed;
    String writerThread;

    Recording(long failAt) {
      this.failAt = failAt;
    }

    @Override
    public boolean alreadyCommitted() {
      return false;
    }

    @Override
    public void write(Object[] row) throws IOException {
      writerThread = Thread.currentThread().getName();
      if (rows.size() == failAt) {
        throw new IOException("disk full at row " + failAt);
      }
      rows.add(row[0]);
    }

    @Override
    public long rows() {
      return rows.size();
    }

    @Override
    public long commit(Map<String, String> commitInfo) {
      committed = commitInfo;
      return 7;
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void everyRowReachesTheTableInOrderBeforeTheCommit() throws Exception {
    Recording target = new Recording(-1);
    try (var writer = new PipelinedBatchWriter(target, "w")) {
      for (int i = 0; i < 10_001; i++) {
        writer.write(new Object[] {i});
      }
      assertThat(writer.commit(Map.of("batchId", "3"))).isEqualTo(7);
      assertThat(writer.rows()).isEqualTo(10_001);
    }
    assertThat(target.rows).hasSize(10_001);
    for (int i = 0; i < 10_001; i++) {
      assertThat(target.rows.get(i)).isEqualTo(i);
    }
    assertThat(target.writerThread).isEqualTo("w");
    assertThat(target.committed).containsEntry("batchId", "3");
    assertThat(target.closed).isTrue();
  }

  @Test
  void aWriteFailureOnTheWriterThreadFailsTheBatchAndNothingIsCommitted() {
    Recording target = new Recording(5000);
    assertThatThrownBy(
            () -> {
              try (var writer = new PipelinedBatchWriter(target, "w")) {
                for (int i = 0; i < 100_000; i++) {
                  writer.write(new Object[] {i});
                }
                writer.commit(Map.of());
              }
            })
        .isInstanceOf(IOException.class)
        .hasMessage("disk full at row 5000");
    assertThat(target.committed).isNull();
    assertThat(target.closed).isTrue();
  }

  @Test
  void aWriterThreadStillBusyAfterCloseClosesTheTableOnlyWhenItEnds() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch writing = new CountDownLatch(1);
    AtomicBoolean closedWhileWriting = new AtomicBoolean();
    AtomicBoolean inWrite = new AtomicBoolean();
    AtomicBoolean delegateClosed = new AtomicBoolean();
    Recording stalled =
        new Recording(-1) {
          @Override
          public void write(Object[] row) throws IOException {
            inWrite.set(true);
            writing.countDown();
            try {
              release.await(); // an upload that stalls past close's wait
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
            inWrite.set(false);
          }

          @Override
          public void close() {
            closedWhileWriting.compareAndSet(false, inWrite.get());
            delegateClosed.set(true);
          }
        };
    var writer = new PipelinedBatchWriter(stalled, "stalled", Duration.ofMillis(50));
    for (int i = 0; i < 2048; i++) {
      writer.write(new Object[] {i});
    }
    writing.await();

    writer.close();
    assertThat(delegateClosed).as("not closed under a running write").isFalse();
    release.countDown();

    Awaitility.await().atMost(Duration.ofSeconds(30)).untilTrue(delegateClosed);
    assertThat(closedWhileWriting).isFalse();
  }
}
