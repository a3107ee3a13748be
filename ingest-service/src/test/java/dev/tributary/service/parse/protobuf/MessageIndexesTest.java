package dev.tributary.service.parse.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MessageIndexesTest {

  @Test
  void theSingleByteZeroIsTheFirstMessage() {
    MessageIndexes.Read read = MessageIndexes.read(new byte[] {0, 0x0a, 0x01}, 0, 3);

    assertThat(read.indexes()).isEqualTo(MessageIndexes.FIRST);
    assertThat(read.length()).isEqualTo(1);
    assertThat(MessageIndexes.FIRST.toBytes()).containsExactly(0);
  }

  @Test
  void theLongFormOfTheFirstMessageMeansTheSame() {
    MessageIndexes.Read read = MessageIndexes.read(new byte[] {2, 0}, 0, 2);

    assertThat(read.indexes().indexes()).containsExactly(0);
    assertThat(read.length()).isEqualTo(2);
  }

  @Test
  void countAndIndexesAreZigZagVarints() {
    // count 2 -> 4, index 1 -> 2, index 2 -> 4; index 70 -> 140 = 0x8c 0x01 (two bytes).
    MessageIndexes.Read read = MessageIndexes.read(new byte[] {9, 4, 2, 4, 9}, 1, 4);
    assertThat(read.indexes().indexes()).containsExactly(1, 2);
    assertThat(read.length()).isEqualTo(3);

    MessageIndexes deep = new MessageIndexes(List.of(1, 70));
    assertThat(deep.toBytes()).containsExactly(4, 2, 0x8c, 0x01);
    assertThat(MessageIndexes.read(deep.toBytes(), 0, 4).indexes()).isEqualTo(deep);
  }

  @Test
  void aRecordEndingInsideTheIndexesIsRefused() {
    assertThatThrownBy(() -> MessageIndexes.read(new byte[] {4, 2}, 0, 2))
        .hasMessage("invalid Protobuf message indexes: the record ends inside them");
  }

  @Test
  void aNegativeCountIsRefused() {
    assertThatThrownBy(() -> MessageIndexes.read(new byte[] {1, 0}, 0, 2))
        .hasMessageStartingWith("invalid Protobuf message indexes: count -1 (expected 0 to 64)");
  }

  @Test
  void aVarintLongerThanFiveBytesIsRefused() {
    byte[] b = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0};
    assertThatThrownBy(() -> MessageIndexes.read(b, 0, b.length))
        .hasMessage("invalid Protobuf message indexes: a varint longer than 5 bytes");
  }
}
