package dev.tributary.service.bench;

import static dev.tributary.service.bench.JoinBenchEvents.BOUND_MS;
import static dev.tributary.service.bench.JoinBenchEvents.DELAY_MS;
import static dev.tributary.service.bench.JoinBenchEvents.JITTER_MS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The join benchmark's inputs have the properties that make its result independent of the batch
 * cut, so that Tributary's and Spark's tables can be compared as multisets.
 */
class JoinBenchEventsTest {
  @Test
  void everyPurchaseIsWithinThirtyMinutesAfterAClickOfItsUser() {
    for (int[] size : new int[][] {{10, 1}, {2_000, 200}, {100_000, 10_000}, {50_000, 49_000}}) {
      JoinBenchEvents e = JoinBenchEvents.generate(size[0], size[1], 7);
      for (int j = 0; j < e.purchases(); j++) {
        int c = e.purchaseClick(j);
        assertThat(e.purchaseUser(j)).as("purchase %d's user", j).isEqualTo(e.clickUser(c));
        assertThat(e.purchaseMs(j) - e.clickMs(c))
            .as("purchase %d after click %d", j, c)
            .isBetween(0L, BOUND_MS);
      }
    }
  }

  @Test
  void limitsInTheInputsRatioCoverTheSameSpanAndNoRowIsLate() {
    int clicks = 200_000;
    int purchases = 20_000;
    JoinBenchEvents e = JoinBenchEvents.generate(clicks, purchases, 11);
    long clickLimit = 50_000;
    long purchaseLimit = JoinBenchEvents.purchaseLimit(clickLimit, clicks, purchases);
    assertThat(purchaseLimit).isEqualTo(5_000);

    // Record i is on partition i mod n and a limit is spread evenly over the partitions, so batch
    // k reads indices [k × limit, (k + 1) × limit) of each input.
    long clickMax = Long.MIN_VALUE;
    long purchaseMax = Long.MIN_VALUE;
    int batches = 0;
    for (int k = 0; (long) k * clickLimit < clicks; k++) {
      // the watermark the batch applies: both inputs' (max − delay), the minimum (none before
      // either input had a row)
      long watermark =
          clickMax == Long.MIN_VALUE || purchaseMax == Long.MIN_VALUE
              ? Long.MIN_VALUE
              : Math.min(clickMax, purchaseMax) - DELAY_MS;
      long batchClickMax = Long.MIN_VALUE;
      for (long i = k * clickLimit; i < Math.min(clicks, (k + 1) * clickLimit); i++) {
        assertThat(e.clickMs((int) i))
            .as("click %d in batch %d is not late", i, k)
            .isGreaterThan(watermark);
        batchClickMax = Math.max(batchClickMax, e.clickMs((int) i));
      }
      long batchPurchaseMax = Long.MIN_VALUE;
      for (long j = k * purchaseLimit; j < Math.min(purchases, (k + 1) * purchaseLimit); j++) {
        assertThat(e.purchaseMs((int) j))
            .as("purchase %d in batch %d is not late", j, k)
            .isGreaterThan(watermark);
        batchPurchaseMax = Math.max(batchPurchaseMax, e.purchaseMs((int) j));
      }
      assertThat(Math.abs(batchPurchaseMax - batchClickMax))
          .as("batch %d ends at the same event time in both inputs", k)
          .isLessThan(2 * JITTER_MS);
      clickMax = Math.max(clickMax, batchClickMax);
      purchaseMax = Math.max(purchaseMax, batchPurchaseMax);
      batches++;
    }
    assertThat(batches).isEqualTo(4);
  }

  @Test
  void eachInputIsInEventTimeOrderUpToAJitterBelowTheDelay() {
    JoinBenchEvents e = JoinBenchEvents.generate(100_000, 10_000, 3);
    assertThat(JITTER_MS).isLessThan(DELAY_MS);
    long max = e.clickMs(0);
    for (int i = 0; i < e.clicks(); i++) {
      assertThat(max - e.clickMs(i)).as("click %d", i).isLessThan(JITTER_MS);
      max = Math.max(max, e.clickMs(i));
    }
    max = e.purchaseMs(0);
    for (int j = 0; j < e.purchases(); j++) {
      assertThat(max - e.purchaseMs(j)).as("purchase %d", j).isLessThan(JITTER_MS);
      max = Math.max(max, e.purchaseMs(j));
    }
  }

  @Test
  void recordsAreJsonWithMillisecondTimestampsAndTheSameForTheSameSeed() throws Exception {
    JoinBenchEvents e = JoinBenchEvents.generate(1_000, 100, 5);
    ObjectMapper json = new ObjectMapper();
    JsonNode click = json.readTree(e.clickJson(17));
    assertThat(click.get("click_id").asText()).isEqualTo("c-17");
    assertThat(click.get("event_ts").asText())
        .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    assertThat(Instant.parse(click.get("event_ts").asText()).toEpochMilli())
        .isEqualTo(e.clickMs(17));
    JsonNode purchase = json.readTree(e.purchaseJson(3));
    assertThat(purchase.get("user_id").asText()).isEqualTo(e.purchaseUser(3));
    assertThat(Instant.parse(purchase.get("event_ts").asText()).toEpochMilli())
        .isEqualTo(e.purchaseMs(3));
    assertThat(JoinBenchEvents.generate(1_000, 100, 5).purchaseJson(3))
        .isEqualTo(e.purchaseJson(3));
  }

  @Test
  void tooFewClicksAreRefusedWithTheReason() {
    assertThatThrownBy(() -> JoinBenchEvents.generate(0, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the join benchmark needs at least one click and one purchase, got 0 and 1");
  }
}
