package dev.tributary.service.stateful;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * State keeps the values a Delta source may carry (issue 23): byte, short, float, timestamp_ntz,
 * arrays and maps (nested, with nulls), each read back as the same Java value.
 */
class CodecTypesTest {
  @Test
  void narrowZonelessAndCollectionValuesRoundTrip() {
    Map<Object, Object> map = new LinkedHashMap<>();
    map.put("b", Arrays.asList(1L, null));
    map.put("a", null);
    Object[] values = {
      (byte) -128,
      (short) 32767,
      -0.125f,
      LocalDateTime.parse("1969-07-20T20:17:40.000001"),
      Arrays.asList("x", null, "z"),
      map,
      List.of()
    };
    Codec.Writer w = new Codec.Writer();
    for (Object v : values) {
      w.value(v);
    }

    Object[] back = Codec.values(w.toBytes(), 0, values.length);

    assertThat(back).containsExactly(values);
    List<Object> keys = new ArrayList<>(((Map<?, ?>) back[5]).keySet());
    assertThat(keys).containsExactly("b", "a");
  }
}
