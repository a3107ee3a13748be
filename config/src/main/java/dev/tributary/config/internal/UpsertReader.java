package dev.tributary.config.internal;

import dev.tributary.config.UpsertSpec;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads how a Delta sink writes ({@code sink.delta.write} and the keys of {@code write: upsert}):
 * {@code key}, {@code sequence-by}, {@code delete-when}, {@code merge-strategy}, {@code history}.
 * The keys of an upsert on a sink that appends are refused at their line: they would be ignored.
 */
final class UpsertReader {

  /** The upsert keys, in documentation order. */
  static final List<String> UPSERT_KEYS =
      List.of("key", "sequence-by", "delete-when", "merge-strategy", "history");

  /** {@code sink.delta.write}. */
  enum Write {
    APPEND,
    UPSERT;

    String keyword() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final YamlNodes nodes;

  UpsertReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /**
   * Reads the write keys of {@code delta} (the {@code sink.delta} mapping, not finished here).
   *
   * @return empty for an appending sink; null when a key is invalid (reported)
   */
  Optional<UpsertSpec> read(YamlMap delta) {
    Write write =
        delta.read(
            "write",
            n -> nodes.keyword(n, delta.child("write"), "write", Write.values(), Write::keyword),
            Write.APPEND);
    if (write == null) {
      UPSERT_KEYS.forEach(delta::optional); // reported: the mode is unknown, not these keys
      return null;
    }
    if (write == Write.APPEND) {
      for (String key : delta.present(UPSERT_KEYS)) {
        delta.optional(key);
        nodes.problems().atKey(delta.child(key), Messages.upsertKeyOnAppend(key));
      }
      return delta.present(UPSERT_KEYS).isEmpty() ? Optional.empty() : null;
    }
    // Optional here: with columns: all each table's key is its record key's fields; UpsertChecks
    // requires it otherwise, where the format is known.
    Node keyNode = delta.optional("key").orElse(null);
    List<String> key = keyNode == null ? List.of() : nodes.textList(keyNode, delta.child("key"));
    if (keyNode != null && key != null && key.isEmpty()) {
      nodes.fail(keyNode, delta.child("key"), Messages.empty("the key column list"));
      key = null;
    }
    Optional<String> sequenceBy =
        delta.read(
            "sequence-by",
            n -> present(nodes.nonEmptyText(n, delta.child("sequence-by"), "the sequence column")),
            Optional.empty());
    Optional<String> deleteWhen =
        delta.read(
            "delete-when",
            n -> present(nodes.nonEmptyText(n, delta.child("delete-when"), "the delete predicate")),
            Optional.empty());
    UpsertSpec.MergeStrategy strategy =
        delta.read(
            "merge-strategy",
            n ->
                nodes.keyword(
                    n,
                    delta.child("merge-strategy"),
                    "merge strategy",
                    UpsertSpec.MergeStrategy.values(),
                    UpsertSpec.MergeStrategy::keyword),
            UpsertSpec.MergeStrategy.COPY_ON_WRITE);
    UpsertSpec.History history =
        delta.read(
            "history",
            n ->
                nodes.keyword(
                    n,
                    delta.child("history"),
                    "history",
                    UpsertSpec.History.values(),
                    UpsertSpec.History::keyword),
            UpsertSpec.History.NONE);
    if (key == null
        || sequenceBy == null
        || deleteWhen == null
        || strategy == null
        || history == null) {
      return null;
    }
    return Optional.of(new UpsertSpec(key, sequenceBy, deleteWhen, strategy, history));
  }

  /** A value read, or null (invalid, reported) as null. */
  private static Optional<String> present(String text) {
    return text == null ? null : Optional.of(text);
  }
}
