package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IsoTimestampsTest {

  @Test
  void acceptedTimestampForms() {
    assertThat(IsoTimestamps.parseTimestamp("2026-01-01T00:00:00Z"))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(IsoTimestamps.parseTimestamp("2026-01-01t00:00:00z"))
        .isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    assertThat(IsoTimestamps.parseTimestamp("2026-06-30T23:59:59.5-07"))
        .isEqualTo(Instant.parse("2026-07-01T06:59:59.5Z"));
    assertThat(IsoTimestamps.parseTimestamp("2024-02-29T12:00+0530"))
        .isEqualTo(Instant.parse("2024-02-29T06:30:00Z"));
    assertThat(IsoTimestamps.parseTimestamp("1969-12-31 23:59:59.999999999"))
        .as("truncated to microseconds")
        .isEqualTo(Instant.parse("1969-12-31T23:59:59.999999Z"));
    assertThat(IsoTimestamps.parseTimestamp("0001-01-01"))
        .isEqualTo(Instant.parse("0001-01-01T00:00:00Z"));
  }

  @Test
  void rejectedTimestampForms() {
    for (String bad :
        new String[] {
          "",
          "2026",
          "2026-01-01T",
          "2026-01-01T10",
          "2026-01-01T10:0",
          "2026-01-01T24:00:00Z",
          "2026-01-01T10:60",
          "2026-01-01T10:00:60",
          "2026-01-01T10:00:00.",
          "2026-01-01T10:00:00.1x",
          "2026-01-01T10:00:00+19:00",
          "2026-01-01T10:00:00+05:3",
          "2026-01-01T10:00:00 Z",
          "2026-01-01T10:00:00UTC",
          "2026-02-30T00:00:00Z",
          "2026-13-01",
          "2026-1-01",
          "26-01-01",
          "2026/01/01",
          "+2026-01-01",
          "2026-01-01X10:00"
        }) {
      assertThat(IsoTimestamps.parseTimestamp(bad)).as("'%s'", bad).isNull();
    }
  }

  @Test
  void dates() {
    assertThat(IsoTimestamps.parseDate("2024-02-29")).isEqualTo(LocalDate.of(2024, 2, 29));
    assertThat(IsoTimestamps.parseDate("2023-02-29")).isNull();
    assertThat(IsoTimestamps.parseDate("2024-02-29T00:00:00Z")).isNull();
    assertThat(IsoTimestamps.parseDate("2024-2-29")).isNull();
    assertThat(IsoTimestamps.parseDate("")).isNull();
  }

  @Test
  void agreesWithJavaTimeOnRandomOffsetTimestamps() {
    Random random = new Random(11);
    for (int i = 0; i < 5_000; i++) {
      long seconds = random.nextLong() % 200_000_000_000L;
      int offsetMinutes = (random.nextInt(37) - 18) * 60 + (random.nextBoolean() ? 30 : 0);
      offsetMinutes = Math.max(-18 * 60, Math.min(18 * 60, offsetMinutes));
      OffsetDateTime t =
          Instant.ofEpochSecond(
                  Math.abs(seconds) % 253_000_000_000L, random.nextInt(1_000_000) * 1000L)
              .atOffset(ZoneOffset.ofTotalSeconds(offsetMinutes * 60));
      String text = t.toString();
      if (t.getYear() > 9999) {
        continue;
      }
      assertThat(IsoTimestamps.parseTimestamp(text)).as(text).isEqualTo(t.toInstant());
    }
  }
}
