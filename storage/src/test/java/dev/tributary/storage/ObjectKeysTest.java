package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {
  @Test
  void orderIsTheUnsignedByteOrderOfUtf8LikeS3() {
    Random random = new Random(42);
    int[] alphabet = {'a', 'b', '/', '-', '=', 0x7f, 0xe9, 0x65e5, 0xfffd, 0x1f600, 0x10348};
    for (int i = 0; i < 20_000; i++) {
      String a = randomKey(random, alphabet);
      String b = randomKey(random, alphabet);

      int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8)));
      assertThat(Integer.signum(ObjectKeys.ORDER.compare(a, b)))
          .as("%s vs %s", a, b)
          .isEqualTo(expected);
    }
  }

  @Test
  void orderDiffersFromStringOrderOnlyOutsideTheBasicPlane() {
    String emoji = "\uD83D\uDE00";
    String replacement = "\uFFFD";

    assertThat(emoji.compareTo(replacement)).isNegative();
    assertThat(ObjectKeys.ORDER.compare(emoji, replacement)).isPositive();
    assertThat(ObjectKeys.ORDER.compare("a", "a/b")).isNegative();
    assertThat(ObjectKeys.ORDER.compare("same", "same")).isZero();
  }

  @Test
  void validKeysPassUnchanged() {
    for (String key :
        new String[] {"a", "a/b/c.json", "date=2024-01-01/part 1", "..a/b..", ".hidden"}) {
      assertThat(ObjectKeys.check(key)).isSameAs(key);
    }
  }

  @Test
  void eachRuleHasItsOwnMessage() {
    assertThatThrownBy(() -> ObjectKeys.check(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Object key must not be null");
    assertThatThrownBy(() -> ObjectKeys.check(""))
        .hasMessageStartingWith("Invalid object key '': it is empty");
    assertThatThrownBy(() -> ObjectKeys.check("a\0b"))
        .hasMessageContaining("contains a NUL character");
    assertThatThrownBy(() -> ObjectKeys.check("/a")).hasMessageContaining("starts with '/'");
    assertThatThrownBy(() -> ObjectKeys.check("a/")).hasMessageContaining("ends with '/'");
    assertThatThrownBy(() -> ObjectKeys.check("a//b")).hasMessageContaining("empty segment");
    assertThatThrownBy(() -> ObjectKeys.check("a/./b")).hasMessageContaining("a '.' segment");
    assertThatThrownBy(() -> ObjectKeys.check("a/.."))
        .hasMessageContaining("a '..' segment, which could escape the store's root");
  }

  private static String randomKey(Random random, int[] alphabet) {
    StringBuilder key = new StringBuilder();
    int length = random.nextInt(6);
    for (int i = 0; i < length; i++) {
      key.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
    }
    return key.toString();
  }
}
