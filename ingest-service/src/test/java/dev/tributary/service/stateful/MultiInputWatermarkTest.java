package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.service.stateful.MultiInputWatermark.Policy;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Spark's multiple-watermark rules (docs/STREAM_JOINS_SPARK_RULES.md W1-W3) with the numbers of
 * Spark's own test of the policy: inputs with delays of 10 s and 15 s.
 */
class MultiInputWatermarkTest {
  private static final long SECOND = 1_000_000L;

  /** Two global trackers: input 0 with a 10 s delay, input 1 with 15 s. */
  private static MultiInputWatermark watermark(Policy policy) {
    return new MultiInputWatermark(
        policy,
        List.of(
            new WatermarkTracker(false /* perPartition */, 10 * SECOND),
            new WatermarkTracker(false /* perPartition */, 15 * SECOND)));
  }

  /** Runs one batch in which input 0 sees {@code a} seconds and input 1 sees {@code b} (or not). */
  private static long batch(MultiInputWatermark w, long current, Long a, Long b) {
    w.begin(current);
    if (a != null) {
      w.input(0).observe(0, a * SECOND);
    }
    if (b != null) {
      w.input(1).observe(0, b * SECOND);
    }
    return w.end(current);
  }

  @Test
  void minFollowsTheSlowerInputAndHoldsWhileOneInputIsSilent() {
    MultiInputWatermark w = watermark(Policy.MIN);
    long g = batch(w, 0, 20L, 30L);
    assertThat(g).isEqualTo(10 * SECOND);
    g = batch(w, g, 120L, 130L);
    assertThat(g).isEqualTo(110 * SECOND);
    g = batch(w, g, null, 150L); // input 1 alone: 135, input 0 holds 110
    assertThat(g).isEqualTo(110 * SECOND);
    assertThat(w.value(1)).hasValue(135 * SECOND);
  }

  @Test
  void maxFollowsTheFasterInput() {
    MultiInputWatermark w = watermark(Policy.MAX);
    long g = batch(w, 0, 20L, 30L);
    assertThat(g).isEqualTo(15 * SECOND);
    g = batch(w, g, 120L, 130L);
    assertThat(g).isEqualTo(115 * SECOND);
    g = batch(w, g, 150L, null); // input 0 alone: 140, input 1 holds 115
    assertThat(g).isEqualTo(140 * SECOND);
  }

  @Test
  void anInputWithoutDataCountsAsZeroSoMinDoesNotMove() {
    MultiInputWatermark w = watermark(Policy.MIN);
    long g = batch(w, 0, 500L, null);
    assertThat(g).as("input 1 has no value: counted as 0").isZero();
    assertThat(w.value(0)).hasValue(490 * SECOND);
    assertThat(w.value(1)).isEqualTo(OptionalLong.empty());
    g = batch(w, g, null, 100L);
    assertThat(g).as("both have values now: min(490, 85)").isEqualTo(85 * SECOND);
  }

  @Test
  void noInputAndTheGlobalWatermarkEverGoBack() {
    MultiInputWatermark w = watermark(Policy.MIN);
    long g = batch(w, 0, 100L, 100L);
    assertThat(g).isEqualTo(85 * SECOND);
    g = batch(w, g, 50L, 40L); // older rows: no input goes back
    assertThat(g).isEqualTo(85 * SECOND);
    assertThat(w.value(0)).hasValue(90 * SECOND);
    assertThat(w.value(1)).hasValue(85 * SECOND);
    MultiInputWatermark max = watermark(Policy.MAX);
    assertThat(batch(max, 200 * SECOND, 20L, 30L))
        .as("the global watermark only moves forward")
        .isEqualTo(200 * SECOND);
  }

  /**
   * Ours: the values survive a restart, so the batch after it computes what an uninterrupted run
   * computes; Spark restarts every input at none (W3) and its min would hold at 110.
   */
  @Test
  void restoredValuesGiveTheUninterruptedRunsWatermark() {
    MultiInputWatermark uninterrupted = watermark(Policy.MIN);
    long g = batch(uninterrupted, 0, 120L, 130L);
    String saved = uninterrupted.encode();
    long expected = batch(uninterrupted, g, 160L, null);

    MultiInputWatermark restarted = watermark(Policy.MIN);
    restarted.restore(saved);
    assertThat(batch(restarted, g, 160L, null)).isEqualTo(expected).isEqualTo(115 * SECOND);

    MultiInputWatermark forgetful = watermark(Policy.MIN); // what Spark does
    assertThat(batch(forgetful, g, 160L, null)).isEqualTo(g);
  }

  @Test
  void encodesNoneAndRefusesAnotherNumberOfInputs() {
    MultiInputWatermark w = watermark(Policy.MIN);
    batch(w, 0, 20L, null);
    assertThat(w.encode()).isEqualTo(10 * SECOND + ",none");
    MultiInputWatermark back = watermark(Policy.MIN);
    back.restore(w.encode());
    assertThat(back.encode()).isEqualTo(w.encode());
    assertThatThrownBy(() -> back.restore("1,2,3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3 inputs")
        .hasMessageContaining("the pipeline has 2");
  }

  @Test
  void policiesAreNamedAsInYaml() {
    assertThat(Policy.of("min")).isEqualTo(Policy.MIN);
    assertThat(Policy.of("max")).isEqualTo(Policy.MAX);
  }
}
