package dev.tributary.table.dv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class Z85Test {
  @Test
  void theRelativePathOfProtocolExampleOneHoldsItsUuid() {
    // PROTOCOL.md, "JSON Example 1": prefix "ab", then the UUID in 20 characters
    UUID uuid = Z85.decodeUuid("^-aqEH.-t@S}K{vb[*k^");
    assertThat(uuid).isEqualTo(UUID.fromString("d2c639aa-8816-431a-aaf6-d3fe2512ff61"));
    assertThat(Z85.encodeUuid(uuid)).isEqualTo("^-aqEH.-t@S}K{vb[*k^");
  }

  @Test
  void theRfcTestVectorEncodesAsTheSpecificationSays() {
    // ZeroMQ RFC 32's example: 8 bytes to "HelloWorld"
    byte[] bytes = {(byte) 0x86, 0x4F, (byte) 0xD2, 0x6F, (byte) 0xB5, 0x59, (byte) 0xF7, 0x5B};
    assertThat(Z85.encode(bytes)).isEqualTo("HelloWorld");
    assertThat(Z85.decode("HelloWorld")).isEqualTo(bytes);
  }

  @Test
  void anyLengthRoundTripsThroughPadding() {
    Random random = new Random(7);
    for (int length = 0; length < 40; length++) {
      byte[] bytes = new byte[length];
      random.nextBytes(bytes);
      String text = Z85.encode(bytes);
      assertThat(text).hasSize((length + 3) / 4 * 5);
      assertThat(Z85.decode(text, length)).isEqualTo(bytes);
    }
  }

  @Test
  void badTextIsRefusedWithThePlaceNamed() {
    assertThatThrownBy(() -> Z85.decode("Hell"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiple of 5");
    assertThatThrownBy(() -> Z85.decode("Hell\"World"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'\"' at position 4");
    assertThatThrownBy(() -> Z85.decode("#####"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exceeds 32 bits");
    assertThatThrownBy(() -> Z85.decode("HelloWorld", 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot hold exactly 3 bytes");
    assertThatThrownBy(() -> Z85.decodeUuid("short"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("20 characters");
  }
}
