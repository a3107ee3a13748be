package dev.tributary.table.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/PROTOCOL_SUPPORT.md's table of features says what {@link ProtocolSupport}'s lists say: a
 * feature marked "read" is one we read, "append" one we honour when committing (the row rules: when
 * the appending pipeline enforces them), "write new" one we put on tables ourselves, and every
 * feature of the lists has a row.
 */
class ProtocolSupportDocTest {
  private static final Path DOC = Path.of("../docs/PROTOCOL_SUPPORT.md");
  private static final Pattern ROW =
      Pattern.compile(
          "^\\| `([A-Za-z0-9-]+)` \\| (writer|reader-writer) \\| (yes|no) \\| (yes|no) \\| (yes|no) \\|");

  record Row(String kind, boolean read, boolean append, boolean writeNew) {}

  private static Map<String, Row> rows() throws IOException {
    Map<String, Row> rows = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(DOC);
    for (String line : lines) {
      Matcher m = ROW.matcher(line);
      if (m.find()) {
        rows.put(
            m.group(1),
            new Row(
                m.group(2),
                m.group(3).equals("yes"),
                m.group(4).equals("yes"),
                m.group(5).equals("yes")));
      }
    }
    return rows;
  }

  @Test
  void theFeatureTableSaysWhatTheCodeDoes() throws IOException {
    Map<String, Row> rows = rows();
    assertThat(rows).hasSizeGreaterThan(20);
    for (var e : rows.entrySet()) {
      String feature = e.getKey();
      Row row = e.getValue();
      boolean read =
          row.kind().equals("writer") || ProtocolSupport.READER_FEATURES.contains(feature);
      assertThat(row.read()).as("read of %s", feature).isEqualTo(read);
      assertThat(row.append())
          .as("append of %s", feature)
          .isEqualTo(
              ProtocolSupport.WRITER_FEATURES.contains(feature)
                  || ProtocolSupport.ROW_RULE_FEATURES.contains(feature));
      assertThat(row.writeNew())
          .as("write new of %s", feature)
          .isEqualTo(ProtocolSupport.CREATED_FEATURES.contains(feature));
    }
    Set<String> inCode = new HashSet<>(ProtocolSupport.READER_FEATURES);
    inCode.addAll(ProtocolSupport.WRITER_FEATURES);
    inCode.addAll(ProtocolSupport.CREATED_FEATURES);
    assertThat(rows.keySet()).as("every feature of the code has a row").containsAll(inCode);
  }

  @Test
  void aReaderFeatureTheDocMarksReadableIsReadable() throws IOException {
    for (var e : rows().entrySet()) {
      if (e.getValue().kind().equals("reader-writer") && e.getValue().read()) {
        Protocol p = new Protocol(3, 7, Set.of(e.getKey()), Set.of(e.getKey()));
        Metadata m =
            new Metadata(
                "id", null, null, Metadata.Format.parquet(), "{}", List.of(), Map.of(), 0L);
        ProtocolSupport.checkReadable("t", 0, p, m); // throws if not
      }
    }
  }
}
