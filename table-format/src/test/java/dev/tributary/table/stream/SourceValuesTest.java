package dev.tributary.table.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SourceValuesTest {

  @Test
  void positionsRoundTripThroughJsonAndCompareByVersionThenSnapshotThenIndex() {
    SourcePosition snapshot = new SourcePosition("t", 7, 3, true);
    SourcePosition commit = new SourcePosition("t", 7, 0, false);
    SourcePosition next = SourcePosition.commitStart("t", 8);

    assertThat(SourcePosition.fromJson(snapshot.toJson())).isEqualTo(snapshot);
    assertThat(SourcePosition.fromJson(commit.toJson())).isEqualTo(commit).isNotEqualTo(snapshot);
    assertThat(snapshot.toJson())
        .isEqualTo("{\"tableId\":\"t\",\"version\":7,\"index\":3,\"initialSnapshot\":true}");
    List<SourcePosition> list =
        new ArrayList<>(
            List.of(
                next,
                commit,
                new SourcePosition("t", 7, 1, false),
                snapshot,
                SourcePosition.snapshotStart("t", 7)));
    list.sort(null);
    assertThat(list)
        .containsExactly(
            SourcePosition.snapshotStart("t", 7),
            snapshot,
            commit,
            new SourcePosition("t", 7, 1, false),
            next);
  }

  @Test
  void malformedPositionsAreRefusedNamingTheText() {
    assertThatThrownBy(() -> SourcePosition.fromJson("{\"version\":1}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("{\"version\":1}")
        .hasMessageContaining("tableId");
    assertThatThrownBy(() -> SourcePosition.fromJson("not json")).hasMessageContaining("not JSON");
    assertThatThrownBy(
            () ->
                SourcePosition.fromJson(
                    "{\"tableId\":\"t\",\"version\":-1,\"index\":0,\"initialSnapshot\":false}"))
        .hasMessageContaining(">= 0");
  }

  @Test
  void limitsDefaultAsDeltaDoes() {
    assertThat(SourceLimits.defaults()).isEqualTo(new SourceLimits(1000, Long.MAX_VALUE));
    assertThat(SourceLimits.of(null, 1024L)).isEqualTo(new SourceLimits(Long.MAX_VALUE, 1024));
    assertThat(SourceLimits.of(5L, 1024L)).isEqualTo(new SourceLimits(5, 1024));
    assertThatThrownBy(() -> SourceLimits.of(0L, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max-files-per-trigger");
  }

  @Test
  void admissionIsExactInFilesAndSoftInBytes() {
    SourceLimits.Admission files = new SourceLimits(2, Long.MAX_VALUE).admission();
    assertThat(files.admit(10)).isTrue();
    assertThat(files.admit(10)).isTrue();
    assertThat(files.admit(10)).isFalse();
    SourceLimits.Admission bytes = new SourceLimits(100, 15).admission();
    assertThat(bytes.admit(100)).as("the first file always").isTrue();
    assertThat(bytes.admit(1)).isFalse();
    SourceLimits.Admission soft = new SourceLimits(100, 15).admission();
    assertThat(soft.admit(10)).isTrue();
    assertThat(soft.admit(10)).as("one file past the limit").isTrue();
    assertThat(soft.admit(1)).isFalse();
  }
}
