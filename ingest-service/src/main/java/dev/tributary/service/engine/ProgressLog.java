package dev.tributary.service.engine;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tributary.config.Secrets;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * What a pipeline's runs report: the last progress records, each new one told to the listeners, and
 * the {@link RunActivity} (what the run is doing now; {@link #add} records a completed batch in
 * it). One log lives as long as the pipeline, across its runs. The JSON rendering is the one
 * written to logs: one line per batch.
 */
public final class ProgressLog {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .findAndRegisterModules()
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final int capacity;
  private final Secrets secrets;
  private final Deque<BatchProgress> recent = new ArrayDeque<>();
  private final List<Consumer<BatchProgress>> listeners = new CopyOnWriteArrayList<>();
  private final RunActivity activity;

  /** A log without secrets to mask (tests, a pipeline declared without any). */
  public ProgressLog(int capacity) {
    this(capacity, Secrets.NONE);
  }

  /** A log whose records are kept and handed to listeners with {@code secrets} masked. */
  public ProgressLog(int capacity, Secrets secrets) {
    this(capacity, secrets, new RunActivity(Clock.systemUTC()));
  }

  /** A log that reports its runs' activity to {@code activity} (tests: one on a fake clock). */
  public ProgressLog(int capacity, Secrets secrets, RunActivity activity) {
    this.capacity = capacity;
    this.secrets = secrets;
    this.activity = activity;
  }

  /** What the run is doing now; the run loops report their phases to it. */
  public RunActivity activity() {
    return activity;
  }

  /** Records a completed batch: keeps it, notes it in the activity, tells the listeners. */
  public synchronized void add(BatchProgress record) {
    activity.batchDone();
    BatchProgress progress = record.masked(secrets);
    recent.addLast(progress);
    while (recent.size() > capacity) {
      recent.removeFirst();
    }
    listeners.forEach(l -> l.accept(progress));
  }

  /** The most recent records, oldest first, at most {@code n}. */
  public synchronized List<BatchProgress> last(int n) {
    List<BatchProgress> all = List.copyOf(recent);
    return all.subList(Math.max(0, all.size() - n), all.size());
  }

  public void addListener(Consumer<BatchProgress> listener) {
    listeners.add(listener);
  }

  /** The one-line JSON form of a progress record. */
  public static String toJson(BatchProgress progress) {
    try {
      return JSON.writeValueAsString(progress);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
