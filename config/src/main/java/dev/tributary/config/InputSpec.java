package dev.tributary.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The second input of a stream-stream join ({@code join[].stream}): a source read in the same
 * batches as the main one, with its own format and watermark. Its columns are renamed {@code prefix
 * + column} before the join, so they cannot clash with the main input's.
 *
 * @param source a Kafka source (its {@code bootstrap-servers} default to the main source's) or a
 *     Delta table
 * @param format how record values are decoded; present exactly when the source is Kafka (a Delta
 *     table's schema is the input's)
 * @param watermark the input's own watermark (its column named as in {@code format}, without the
 *     prefix; always the global policy), if declared
 * @param prefix what each of the input's column names is prefixed with, e.g. {@code p_}; not empty
 */
public record InputSpec(
    SourceSpec source,
    Optional<FormatSpec> format,
    Optional<WatermarkSpec> watermark,
    String prefix) {

  /** Checks that no part is null and that the prefix is given. */
  public InputSpec {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(watermark, "watermark");
    if (Objects.requireNonNull(prefix, "prefix").isEmpty()) {
      throw new IllegalArgumentException("a stream input needs a column prefix");
    }
  }

  /** The watermark column as the join sees it ({@code prefix + column}), if the input has one. */
  public Optional<String> watermarkColumn() {
    return watermark.map(w -> prefix + w.column());
  }

  /** Returns the name a column of this input has after the join's renaming. */
  public String prefixed(String column) {
    return prefix + column;
  }
}
