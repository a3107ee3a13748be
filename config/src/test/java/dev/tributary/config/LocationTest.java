package dev.tributary.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Canonical locations: spellings of one place compare equal, and nesting is by whole segments. */
class LocationTest {
  private static final Path CWD = Path.of("/work/run");

  private static Location at(String text) {
    return Location.parse(text, CWD);
  }

  @Test
  void localSpellingsOfOnePlaceAreEqual() {
    Location plain = at("/data/tables/orders");
    assertThat(at("/data/tables/orders/")).isEqualTo(plain);
    assertThat(at("/data/./tables//orders")).isEqualTo(plain);
    assertThat(at("/data/tables/x/../orders")).isEqualTo(plain);
    assertThat(at("file:///data/tables/orders")).isEqualTo(plain);
    assertThat(at("file:/data/tables/orders/")).isEqualTo(plain);
    assertThat(at(" /data/tables/orders ")).isEqualTo(plain);
    assertThat(plain.toString()).isEqualTo("/data/tables/orders");
  }

  @Test
  void relativeLocalPathsResolveAgainstTheWorkingDirectory() {
    assertThat(at("tables/orders")).isEqualTo(at("/work/run/tables/orders"));
    assertThat(at("./tables/../tables/orders")).isEqualTo(at("/work/run/tables/orders"));
    assertThat(at("../other")).isEqualTo(at("/work/other"));
    assertThat(at("/..").toString()).isEqualTo("/");
  }

  @Test
  void s3SpellingsOfOnePlaceAreEqual() {
    Location plain = at("s3://lake/tables/orders");
    assertThat(at("S3://lake/tables/orders/")).isEqualTo(plain);
    assertThat(at("s3://lake//tables/./orders")).isEqualTo(plain);
    assertThat(at("s3://lake/tables/x/../orders")).isEqualTo(plain);
    assertThat(plain.toString()).isEqualTo("s3://lake/tables/orders");
    assertThat(at("s3://lake").toString()).isEqualTo("s3://lake/");
  }

  @Test
  void containmentIsByWholeSegments() {
    assertThat(at("/t/orders").contains(at("/t/orders/_checkpoint"))).isTrue();
    assertThat(at("/t/orders").contains(at("/t/orders"))).isTrue();
    assertThat(at("/t/orders").contains(at("/t/orders-checkpoint"))).isFalse();
    assertThat(at("/t/orders/cp").contains(at("/t/orders"))).isFalse();
    assertThat(at("/t/orders/cp").overlaps(at("/t/orders"))).isTrue();
    assertThat(at("/").contains(at("/anything/at/all"))).isTrue();
    assertThat(at("s3://lake").contains(at("s3://lake/t/orders"))).isTrue();
    assertThat(at("s3://lake/t").contains(at("s3://lake/t2"))).isFalse();
  }

  @Test
  void differentStoresNeverOverlap() {
    assertThat(at("s3://lake/t").overlaps(at("s3://lake2/t"))).isFalse();
    assertThat(at("s3://lake/t").overlaps(at("/lake/t"))).isFalse();
    assertThat(at("s3://lake/t").overlaps(at("s3:/lake/t"))).isFalse(); // a relative local path
  }

  @Test
  void refusesAMalformedFileUri() {
    assertThatThrownBy(() -> at("file://host/t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("'file://host/t' is not a valid local path: ");
  }
}
