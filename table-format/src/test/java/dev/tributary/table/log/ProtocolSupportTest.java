package dev.tributary.table.log;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.table.TableException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProtocolSupportTest {
  private static final String PLAIN =
      "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,"
          + "\"metadata\":{}}]}";

  private static Metadata metadata(String schema, Map<String, String> properties) {
    return new Metadata(
        "id", null, null, Metadata.Format.parquet(), schema, List.of(), properties, 0L);
  }

  @Test
  void aLegacyWriterVersionIsWritableWhileItsImpliedFeaturesAreUnused() {
    Protocol legacy = new Protocol(2, 6, Set.of(), Set.of());
    assertThatCode(
            () ->
                ProtocolSupport.checkWritable(
                    "t", 3, legacy, metadata(PLAIN, Map.of("delta.columnMapping.mode", "name"))))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                ProtocolSupport.checkWritable(
                    "t",
                    3,
                    legacy,
                    metadata(PLAIN, Map.of("delta.constraints.positive", "id > 0"))))
        .isInstanceOf(TableException.class)
        .hasMessageContaining("writer version 6 with features [checkConstraints]");
    assertThatThrownBy(
            () ->
                ProtocolSupport.checkWritable(
                    "t", 3, legacy, metadata(PLAIN, Map.of("delta.enableChangeDataFeed", "true"))))
        .hasMessageContaining("[changeDataFeed]");
  }

  @Test
  void namedWriterFeaturesAreRefusedByNameWhenWeDoNotHonourThemAndTheyAreUsed() {
    Protocol features =
        new Protocol(
            3,
            7,
            Set.of("deletionVectors", "columnMapping"),
            Set.of(
                "deletionVectors",
                "columnMapping",
                "domainMetadata",
                "clustering",
                "identityColumns",
                "generatedColumns"));
    assertThatCode(() -> ProtocolSupport.checkWritable("t", 1, features, metadata(PLAIN, Map.of())))
        .doesNotThrowAnyException();
    String identity = PLAIN.replace("\"metadata\":{}", "\"metadata\":{\"delta.identity.start\":1}");
    assertThatThrownBy(
            () -> ProtocolSupport.checkWritable("t", 1, features, metadata(identity, Map.of())))
        .hasMessageContaining("with features [identityColumns]")
        .hasMessageContaining("docs/PROTOCOL_SUPPORT.md");
    Protocol iceberg = new Protocol(3, 7, Set.of(), Set.of("icebergCompatV2", "domainMetadata"));
    assertThatThrownBy(
            () -> ProtocolSupport.checkWritable("t", 1, iceberg, metadata(PLAIN, Map.of())))
        .hasMessageContaining("with features [icebergCompatV2]");
  }

  @Test
  void aTableWithVariantColumnsIsReadButRefusedToWritersNamingTheColumns() {
    String variant =
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,"
            + "\"metadata\":{}},{\"name\":\"v\",\"type\":\"variant\",\"nullable\":true,"
            + "\"metadata\":{}},{\"name\":\"s\",\"type\":{\"type\":\"array\",\"elementType\":"
            + "\"variant\",\"containsNull\":true},\"nullable\":true,\"metadata\":{}}]}";
    for (String feature : List.of("variantType", "variantType-preview")) {
      Protocol p = new Protocol(3, 7, Set.of(feature), Set.of(feature));
      assertThatCode(() -> ProtocolSupport.checkReadable("t", 4, p, metadata(variant, Map.of())))
          .doesNotThrowAnyException();
      assertThatThrownBy(
              () -> ProtocolSupport.checkWritable("t", 4, p, metadata(variant, Map.of())))
          .isInstanceOf(TableException.class)
          .hasMessageContaining("(version 4): variant columns: read only (v, s)");
    }
  }

  @Test
  void typeWideningUnderItsPreviewNameIsAppendedToAsUnderItsOwn() {
    String widened =
        PLAIN.replace(
            "\"metadata\":{}",
            "\"metadata\":{\"delta.typeChanges\":[{\"tableVersion\":1,\"fromType\":\"integer\","
                + "\"toType\":\"long\"}]}");
    for (String feature : List.of("typeWidening", "typeWidening-preview")) {
      Protocol p = new Protocol(3, 7, Set.of(feature), Set.of(feature));
      assertThatCode(() -> ProtocolSupport.checkWritable("t", 2, p, metadata(widened, Map.of())))
          .as(feature)
          .doesNotThrowAnyException();
    }
  }
}
