package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The key fingerprint: equal keys agree, different keys differ, in every column type. */
class KeyIndexTest {

  private static long[] fp(KeyFingerprint f, Object... row) {
    f.of(row);
    return new long[] {f.hi, f.lo};
  }

  @Test
  void oneIntegralColumnIsItsOwnFingerprintAndNullIsNotZero() {
    KeyIndex index = new KeyIndex(List.of("id"), null);
    KeyFingerprint f =
        index.fingerprinter(StructType.of(StructField.nullable("id", PrimitiveType.LONG)));
    assertThat(fp(f, 42L)[0]).isEqualTo(42L);
    assertThat(fp(f, 42L)).isEqualTo(fp(f, 42L)).isNotEqualTo(fp(f, 43L));
    assertThat(fp(f, (Object) null)).isNotEqualTo(fp(f, 0L));
  }

  @Test
  void keysThatMergeAsEqualHaveOneFingerprintAndOthersDiffer() {
    StructType schema =
        StructType.of(
            StructField.nullable("a", PrimitiveType.STRING),
            StructField.nullable("b", PrimitiveType.STRING));
    KeyFingerprint f = new KeyIndex(List.of("a", "b"), null).fingerprinter(schema);
    assertThat(fp(f, "ab", "c")).isNotEqualTo(fp(f, "a", "bc"));
    assertThat(fp(f, "a", null)).isNotEqualTo(fp(f, "a", ""));
    assertThat(fp(f, null, "a")).isNotEqualTo(fp(f, "a", null));
    assertThat(fp(f, "x\uD83D\uDE00", "y")).isEqualTo(fp(f, "x\uD83D\uDE00", "y"));
    KeyFingerprint any = new KeyFingerprint(new int[] {0}, false); // one column of any type, hashed
    assertThat(fp(any, new byte[] {1, 2})).isEqualTo(fp(any, ByteBuffer.wrap(new byte[] {1, 2})));
    assertThat(fp(any, new BigDecimal("1.50"))).isNotEqualTo(fp(any, new BigDecimal("1.5")));
    assertThat(fp(any, 1.0)).isNotEqualTo(fp(any, 1L));
    assertThat(fp(any, LocalDate.of(2025, 1, 1))).isNotEqualTo(fp(any, 20089L));
    assertThat(fp(any, Instant.ofEpochSecond(1))).isEqualTo(fp(any, Instant.ofEpochMilli(1000)));
  }

  @Test
  void aMillionDistinctStringKeysHaveAMillionFingerprints() {
    KeyFingerprint f =
        new KeyIndex(List.of("k"), null)
            .fingerprinter(StructType.of(StructField.nullable("k", PrimitiveType.STRING)));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1_000_000; i++) {
      f.of(new Object[] {"customer-" + i});
      assertThat(seen.add(f.hi + ":" + f.lo)).isTrue();
    }
  }
}
