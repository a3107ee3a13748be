package dev.tributary.config.internal;

import dev.tributary.config.ColumnSpec;
import dev.tributary.config.DeltaSinkSpec;
import dev.tributary.config.EnvelopeSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.SinkSpec;
import dev.tributary.config.UpsertSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads {@code envelope} and {@code on-truncate} of a format section and checks the declared
 * columns fit a Debezium envelope: they are the row's columns (read from {@code after} or {@code
 * before}), not the event's, and none takes the name of a column the envelope adds.
 */
final class EnvelopeReader {
  /** Prefixes of a declared column that names the event's fields instead of the row's. */
  private static final List<String> EVENT_PATHS =
      List.of("after.", "before.", "payload.after.", "payload.before.");

  private final YamlNodes nodes;

  EnvelopeReader(YamlNodes nodes) {
    this.nodes = nodes;
  }

  /**
   * The envelope of {@code section} (at {@code path}), {@link EnvelopeSpec#NONE} when absent; null
   * when a key or a column is invalid (reported).
   *
   * @param values the value's declared columns, null when broken
   * @param keys the key's declared columns, null when broken
   */
  EnvelopeSpec envelope(
      YamlMap section, String path, List<ColumnSpec> values, List<ColumnSpec> keys) {
    EnvelopeSpec.Kind kind =
        section.read(
            "envelope",
            n ->
                nodes.keyword(
                    n,
                    section.child("envelope"),
                    "envelope",
                    EnvelopeSpec.Kind.values(),
                    EnvelopeSpec.Kind::keyword),
            EnvelopeSpec.Kind.NONE);
    Optional<Node> truncateNode = section.optional("on-truncate");
    EnvelopeSpec.OnTruncate onTruncate =
        truncateNode
            .map(
                n ->
                    nodes.keyword(
                        n,
                        section.child("on-truncate"),
                        "on-truncate",
                        EnvelopeSpec.OnTruncate.values(),
                        EnvelopeSpec.OnTruncate::keyword))
            .orElse(EnvelopeSpec.OnTruncate.FAIL);
    if (kind == null || onTruncate == null) {
      return null;
    }
    if (kind == EnvelopeSpec.Kind.NONE) {
      if (truncateNode.isPresent()) {
        nodes.problems().atKey(section.child("on-truncate"), Messages.truncateWithoutEnvelope());
        return null;
      }
      return EnvelopeSpec.NONE;
    }
    boolean ok = true;
    List<ColumnSpec> declared = new ArrayList<>();
    if (values != null) {
      declared.addAll(values);
    }
    if (keys != null) {
      declared.addAll(keys);
    }
    for (ColumnSpec column : declared) {
      String at = (keys != null && keys.contains(column) ? path + ".key." : path + ".schema.");
      if (column.name().equals(EnvelopeSpec.OP_COLUMN)
          || column.name().equals(EnvelopeSpec.SOURCE_TS_COLUMN)) {
        nodes.problems().atKey(at + column.name(), Messages.envelopeColumnTaken(column.name()));
        ok = false;
      }
    }
    for (ColumnSpec column : values == null ? List.<ColumnSpec>of() : values) {
      for (String prefix : EVENT_PATHS) {
        if (column.name().startsWith(prefix)) {
          nodes
              .problems()
              .atKey(
                  path + ".schema." + column.name(),
                  Messages.envelopeFieldDeclared(
                      column.name(), column.name().substring(prefix.length())));
          ok = false;
          break;
        }
      }
    }
    return ok ? EnvelopeSpec.debezium(onTruncate) : null;
  }

  /**
   * {@link #withDefaults(DeltaSinkSpec, FormatSpec)} applied to the Delta sink among {@code sinks}.
   */
  static List<SinkSpec> withDefaults(List<SinkSpec> sinks, FormatSpec format) {
    if (sinks == null) {
      return null;
    }
    return sinks.stream()
        .map(s -> s instanceof DeltaSinkSpec delta ? withDefaults(delta, format) : s)
        .toList();
  }

  /**
   * {@code sink} with the defaults a Debezium envelope gives an upsert: {@code delete-when: _op =
   * 'd'} when none is declared. Any other sink as it is.
   */
  static DeltaSinkSpec withDefaults(DeltaSinkSpec sink, FormatSpec format) {
    if (sink == null
        || format == null
        || !format.envelope().isDebezium()
        || sink.upsert().isEmpty()
        || sink.upsert().get().deleteWhen().isPresent()) {
      return sink;
    }
    UpsertSpec upsert = sink.upsert().get();
    return sink.withUpsert(
        Optional.of(
            new UpsertSpec(
                upsert.key(),
                upsert.sequenceBy(),
                Optional.of(EnvelopeSpec.DEFAULT_DELETE_WHEN),
                upsert.mergeStrategy(),
                upsert.history())));
  }

  /**
   * Reads {@code envelope} of a format that cannot unwrap events: {@code none} is accepted, {@code
   * debezium} refused at its line.
   */
  void refuse(YamlMap section) {
    Optional<Node> node = section.optional("envelope");
    if (node.isEmpty()) {
      return;
    }
    EnvelopeSpec.Kind kind =
        nodes.keyword(
            node.get(),
            section.child("envelope"),
            "envelope",
            EnvelopeSpec.Kind.values(),
            EnvelopeSpec.Kind::keyword);
    if (kind == EnvelopeSpec.Kind.DEBEZIUM) {
      nodes.fail(node.get(), section.child("envelope"), Messages.envelopeOnProtobuf());
    }
  }
}
