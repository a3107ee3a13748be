package dev.tributary.service.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;

/**
 * Keeps the last progress records of a pipeline and tells listeners about each new one. The JSON
 * rendering is the one written to logs: one line per batch.
 */
public final class ProgressLog {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .findAndRegisterModules()
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final int capacity;
  private final Deque<BatchProgress> recent = new ArrayDeque<>();
  private final List<Consumer<BatchProgress>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  public ProgressLog(int capacity) {
    this.capacity = capacity;
  }

  public synchronized void add(BatchProgress progress) {
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
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
