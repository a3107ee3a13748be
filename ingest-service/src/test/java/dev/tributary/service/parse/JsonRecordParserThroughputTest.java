package dev.tributary.service.parse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import org.junit.jupiter.api.Test;

/**
 * A micro-check, not a benchmark: prints the parse rate of ~200-byte order records next to a bare
 * Jackson streaming pass over the same bytes (the engine's practical ceiling), so a regression is
 * visible in the test output. It asserts correctness only: timings on a shared 2-core CI machine
 * are too noisy to assert on.
 */
class JsonRecordParserThroughputTest {
  private static final int RECORDS = 2_000;
  private static final int ROUNDS = 16;

  @Test
  void printsParseRateBesideABareStreamingParse() throws IOException {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("order_id", "string");
    columns.put("customer_id", "string");
    columns.put("event_time", "timestamp");
    columns.put("amount_cents", "long");
    columns.put("currency", "string");
    columns.put("items", "int");
    columns.put("express", "boolean");
    JsonRecordParser parser = new JsonRecordParser(JsonRecordParser.schemaOf(columns), 1 << 20);
    byte[][] records = new byte[RECORDS][];
    for (int i = 0; i < RECORDS; i++) {
      records[i] =
          ("{\"order_id\":\"ord-"
                  + (100000 + i)
                  + "\",\"customer_id\":\"cust-"
                  + (i % 97)
                  + "\",\"event_time\":\"2026-01-01T00:"
                  + String.format("%02d:%02d", i / 60 % 60, i % 60)
                  + ".123Z\",\"amount_cents\":"
                  + (i * 37 % 10000)
                  + ",\"currency\":\"EUR\",\"items\":"
                  + (i % 5 + 1)
                  + ",\"express\":"
                  + (i % 2 == 0)
                  + ",\"source\":{\"app\":\"web\","
                  + "\"version\":\"1.2.3\"}}")
              .getBytes(StandardCharsets.UTF_8);
    }
    JsonFactory factory = new JsonFactory();
    long parsed = 0;
    long tokens = 0;
    long parserNanos = 0;
    long bareNanos = 0;
    for (int round = 0; round < ROUNDS; round++) {
      long t0 = System.nanoTime();
      for (byte[] r : records) {
        if (parser.parse(r) instanceof ParseResult.Success s && s.row()[3] != null) {
          parsed++;
        }
      }
      long t1 = System.nanoTime();
      for (byte[] r : records) {
        try (JsonParser p = factory.createParser(r)) {
          JsonToken t;
          while ((t = p.nextToken()) != null) {
            if (t == JsonToken.VALUE_STRING) {
              tokens += p.getText().length();
            } else {
              tokens++;
            }
          }
        }
      }
      long t2 = System.nanoTime();
      if (round >= ROUNDS / 2) { // the first half warms the JIT up
        parserNanos += t1 - t0;
        bareNanos += t2 - t1;
      }
    }
    int measured = RECORDS * (ROUNDS - ROUNDS / 2);
    System.out.printf(
        "JsonRecordParser: %.0f records/s; bare Jackson streaming pass: %.0f"
            + " records/s; ratio %.2f%n",
        measured * 1e9 / parserNanos, measured * 1e9 / bareNanos, (double) bareNanos / parserNanos);
    assertThat(parsed).isEqualTo((long) RECORDS * ROUNDS);
    assertThat(tokens).isPositive();
  }
}
