package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizeTest {

  @ParameterizedTest
  @CsvSource({
    "0, 0 bytes",
    "1, 1 byte",
    "1023, 1023 bytes",
    "1024, 1 KB",
    "1536, 1.5 KB",
    "12897484, 12.3 MB",
    "2147483648, 2 GB",
    "1099511627776, 1 TB"
  })
  void roundsForReports(long bytes, String shown) {
    assertThat(new Size(bytes).rounded()).isEqualTo(shown);
  }

  @ParameterizedTest
  @CsvSource({
    "100B, 100",
    "512KB, 524288",
    "128MB, 134217728",
    "1GB, 1073741824",
    "1.5 GB, 1610612736",
    "2 tb, 2199023255552",
    "64MiB, 67108864",
    "0B, 0",
    "1.5KB, 1536",
    "0.3KB, 307"
  })
  void parsesBinaryMultiples(String text, long bytes) {
    assertThat(Size.parse(text).bytes()).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"12XB", "128", "MB", "-1MB", "1,5MB", "", "1 G B"})
  void refusesOtherSyntaxWithAHint(String text) {
    assertThatThrownBy(() -> Size.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cannot parse '"
                + text
                + "' as a size; write it like 128MB or 1GB (units B, KB, MB, GB, TB)");
  }

  @Test
  void refusesSizesBeyondALong() {
    assertThatThrownBy(() -> Size.parse("9000000TB"))
        .hasMessage("the size '9000000TB' is too large; the maximum is 8191PB");
  }

  @ParameterizedTest
  @CsvSource({"134217728, 128MB", "1536, 1536B", "1073741824, 1GB", "0, 0B", "1024, 1KB"})
  void printsTheLargestExactUnit(long bytes, String text) {
    assertThat(new Size(bytes)).hasToString(text);
    assertThat(Size.parse(text).bytes()).isEqualTo(bytes);
  }

  @Test
  void refusesNegativeBytes() {
    assertThatThrownBy(() -> new Size(-1)).hasMessage("a size cannot be negative: -1 bytes");
  }
}
