package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class DecodeAheadTest {

  /** Busy work that shrinks with the input, so a later chunk decodes faster than an earlier one. */
  private static String slowlyDecoded(int input, int total) {
    long spin = 0;
    for (int i = 0; i < (total - input) * 200; i++) {
      spin += i ^ input;
    }
    return "row-" + input + (spin == 42 ? "!" : "");
  }

  private static List<String> applyAll(DecodeAhead.Done chunk, List<Integer> inputs) {
    List<String> results = new ArrayList<>();
    for (int i = 0; i < chunk.size(); i++) {
      inputs.add(chunk.input(i));
      results.add(chunk.result(i));
    }
    return results;
  }

  @Test
  void handsBackEveryInputWithItsResultInTheOrderAdded() throws IOException {
    int total = 5_000;
    Set<String> decodingThreads = ConcurrentHashMap.newKeySet();
    Function<Integer, String> decode =
        i -> {
          decodingThreads.add(Thread.currentThread().getName());
          return slowlyDecoded(i, total);
        };
    List<Integer> inputs = new ArrayList<>();
    List<String> results = new ArrayList<>();
    try (DecodeAhead<Integer, String> ahead = new DecodeAhead<>(7, decode, "decode-test")) {
      for (int batch = 0; batch < 2; batch++) {
        ahead.begin();
        for (int i = batch * total / 2; i < (batch + 1) * total / 2; i++) {
          DecodeAhead.Done done = ahead.add(i);
          if (done != null) {
            results.addAll(applyAll(done, inputs));
          }
        }
        for (DecodeAhead.Done done : ahead.drain()) {
          results.addAll(applyAll(done, inputs));
        }
        assertThat(inputs).hasSize((batch + 1) * total / 2);
      }
    }
    List<Integer> expectedInputs = new ArrayList<>();
    List<String> expectedResults = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      expectedInputs.add(i);
      expectedResults.add("row-" + i);
    }
    assertThat(inputs).containsExactlyElementsOf(expectedInputs);
    assertThat(results).containsExactlyElementsOf(expectedResults);
    assertThat(decodingThreads).containsExactly("decode-test");
  }

  @Test
  void aFailedDecodeIsThrownWhenItsInputIsReachedAfterEveryEarlierOne() throws IOException {
    Function<Integer, String> decode =
        i -> {
          if (i == 42) {
            throw new IllegalStateException("registry down at input 42");
          }
          return "row-" + i;
        };
    List<String> applied = new ArrayList<>();
    try (DecodeAhead<Integer, String> ahead = new DecodeAhead<>(10, decode, "decode-test")) {
      ahead.begin();
      List<DecodeAhead.Done> chunks = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        DecodeAhead.Done done = ahead.add(i);
        if (done != null) {
          chunks.add(done);
        }
      }
      chunks.addAll(ahead.drain());
      assertThatThrownBy(
              () -> {
                for (DecodeAhead.Done chunk : chunks) {
                  for (int i = 0; i < chunk.size(); i++) {
                    applied.add(chunk.result(i));
                  }
                }
              })
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("registry down at input 42");
    }
    assertThat(applied).hasSize(42).endsWith("row-41");
  }

  @Test
  void aNewBatchDropsWhatAnAbandonedOneLeft() throws IOException {
    List<Integer> inputs = new ArrayList<>();
    try (DecodeAhead<Integer, String> ahead =
        new DecodeAhead<>(3, i -> "row-" + i, "decode-test")) {
      ahead.begin();
      for (int i = 0; i < 5; i++) { // one chunk in flight, two inputs pending: abandoned
        ahead.add(i);
      }
      ahead.begin();
      ahead.add(100);
      ahead.add(101);
      for (DecodeAhead.Done done : ahead.drain()) {
        applyAll(done, inputs);
      }
    }
    assertThat(inputs).containsExactly(100, 101);
  }

  @Test
  void refusesAnEmptyChunk() {
    assertThatThrownBy(() -> new DecodeAhead<Integer, String>(0, i -> "", "decode-test"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunk size must be positive, was 0");
  }
}
