package dev.tributary.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ObjectStoresTest {
  @TempDir Path dir;

  @Test
  void isS3RecognisesOnlyS3Urls() {
    assertThat(ObjectStores.isS3("s3://bucket/prefix")).isTrue();
    assertThat(ObjectStores.isS3("S3://bucket")).isTrue();
    assertThat(ObjectStores.isS3("/data/tables")).isFalse();
    assertThat(ObjectStores.isS3("file:///data")).isFalse();
    assertThat(ObjectStores.isS3("s3a://bucket")).isFalse();
    assertThat(ObjectStores.isS3(null)).isFalse();
  }

  @Test
  void aLocalPathOpensALocalStoreAndCreatesTheDirectory() throws IOException {
    Path root = dir.resolve("new/nested/root");
    try (ObjectStore store = ObjectStores.open(root.toString(), null)) {
      store.put("k", "v".getBytes(UTF_8));

      assertThat(store.location()).isEqualTo(root.toString());
      assertThat(root.resolve("k")).hasContent("v");
    }
  }

  @Test
  void aFileUriOpensALocalStore() throws IOException {
    try (ObjectStore store = ObjectStores.open(dir.toUri().toString(), null)) {
      store.put("k", "v".getBytes(UTF_8));

      assertThat(dir.resolve("k")).hasContent("v");
    }
  }

  @Test
  void anS3UrlOpensAnS3StoreWithoutContactingS3() throws IOException {
    try (ObjectStore store = ObjectStores.open("s3://my-bucket/some/prefix/", null)) {
      assertThat(store.location()).isEqualTo("s3://my-bucket/some/prefix");
    }
    try (ObjectStore store = ObjectStores.open("s3://my-bucket", S3Settings.defaults())) {
      assertThat(store.location()).isEqualTo("s3://my-bucket");
    }
  }

  @Test
  void malformedLocationsAreRejectedWithTheReason() {
    assertThatThrownBy(() -> ObjectStores.open("s3:///prefix", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid storage location 's3:///prefix': no bucket name; write"
                + " s3://bucket/prefix");
    assertThatThrownBy(() -> ObjectStores.open("s3://My_Bucket/x", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'My_Bucket' is not a valid S3 bucket name");
    assertThatThrownBy(() -> ObjectStores.open("s3://bucket/a/../b", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Invalid storage location 's3://bucket/a/../b': bad prefix");
    assertThatThrownBy(() -> ObjectStores.open(" ", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("it is empty");
    assertThatThrownBy(() -> ObjectStores.open("file://host/share", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("Invalid storage location 'file://host/share'");
  }
}
