package dev.tributary.config.internal;

import dev.tributary.config.DeltaSourceSpec;
import dev.tributary.config.FormatSpec;
import dev.tributary.config.InputSpec;
import dev.tributary.config.JoinSide;
import dev.tributary.config.JoinSpec;
import dev.tributary.config.JoinType;
import dev.tributary.config.KafkaSourceSpec;
import dev.tributary.config.PipelineSpec;
import dev.tributary.config.Size;
import dev.tributary.config.SourceSpec;
import dev.tributary.config.StorageSpec;
import dev.tributary.config.StreamJoinSpec;
import dev.tributary.config.StreamJoinType;
import dev.tributary.config.TimeCondition;
import dev.tributary.config.TransformStep;
import dev.tributary.config.WatermarkSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the {@code join} list. Each entry is a stream-static join with a Delta dimension table
 * ({@code delta:}, {@link JoinSpec}) or a stream-stream join with a second input ({@code stream:},
 * {@link StreamJoinSpec}), told apart by that key; the keys of the other kind are refused with the
 * reason. Stream joins come after the static ones (they apply to the main input after them).
 */
final class JoinReader {

  private static final Pattern PREFIX = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** The joins of a file: either list is null when one of its entries is invalid. */
  record Joins(List<JoinSpec> statics, List<StreamJoinSpec> streams) {
    static final Joins NONE = new Joins(List.of(), List.of());
  }

  private final YamlNodes nodes;
  private final SourceReader sizes;
  private final OutputReader tables;
  private final QueryReader query;

  JoinReader(YamlNodes nodes, SourceReader sizes, OutputReader tables, QueryReader query) {
    this.nodes = nodes;
    this.sizes = sizes;
    this.tables = tables;
    this.query = query;
  }

  /**
   * Returns the joins, none when absent.
   *
   * @param main the pipeline's source (a second Kafka input defaults to its servers), or null
   * @param format the main input's format, or null (a Delta source, or broken)
   * @param transforms the main input's transforms, or null when broken
   */
  Joins joins(YamlMap root, SourceSpec main, FormatSpec format, List<TransformStep> transforms) {
    Node node = root.optional("join").orElse(null);
    if (node == null) {
      return Joins.NONE;
    }
    List<Node> items = nodes.list(node, "join");
    if (items == null) {
      return new Joins(null, null);
    }
    List<JoinSpec> statics = new ArrayList<>();
    List<StreamJoinSpec> streams = new ArrayList<>();
    boolean staticsOk = true;
    boolean streamsOk = true;
    String firstStream = null;
    for (int i = 0; i < items.size(); i++) {
      String path = "join[" + i + "]";
      YamlMap map = nodes.map(items.get(i), path, "join[]");
      if (map == null) {
        staticsOk = false;
        continue;
      }
      List<String> kinds = map.present(List.of("delta", "stream"));
      if (kinds.size() != 1) {
        nodes.problems().atValue(path, StreamJoinMessages.joinKind(kinds.size() == 2));
        List.of("delta", "stream", "on", "time", "type", "max-size", "columns")
            .forEach(map::optional); // taken: the kind problem is reported once
        map.finish();
        staticsOk = false;
        continue;
      }
      if (kinds.get(0).equals("delta")) {
        if (firstStream != null) {
          nodes.problems().atKey(path, StreamJoinMessages.streamJoinAfterStatic(firstStream, path));
          staticsOk = false;
        }
        JoinSpec join = staticJoin(map, path);
        staticsOk &= join != null;
        statics.add(join);
      } else {
        if (firstStream != null) {
          nodes.problems().atKey(path, StreamJoinMessages.oneStreamJoin(path, firstStream));
          streamsOk = false;
        } else {
          firstStream = path;
        }
        Set<String> left = leftColumns(format, transforms, statics, staticsOk);
        StreamJoinSpec join = streamJoin(map, path, main, left);
        streamsOk &= join != null;
        streams.add(join);
      }
    }
    return new Joins(staticsOk ? statics : null, streamsOk ? streams : null);
  }

  private JoinSpec staticJoin(YamlMap map, String path) {
    Node deltaNode = map.required("delta", "delta: { path: s3://lake/dims/customers }");
    YamlMap delta =
        deltaNode == null ? null : nodes.map(deltaNode, path + ".delta", "join[].delta");
    String table = null;
    StorageSpec storage = null;
    boolean storageOk = true;
    if (delta != null) {
      Node pathNode = delta.required("path", "path: s3://lake/dims/customers or a local directory");
      table =
          pathNode == null
              ? null
              : nodes.nonEmptyText(pathNode, path + ".delta.path", "the table path");
      storage = tables.storage(delta, path + ".delta.storage", "join[].delta.storage");
      storageOk = storage != null || !nodes.problems().declared(path + ".delta.storage");
      delta.finish();
    }
    List<String> on = keys(map, path);
    boolean timeOk = true;
    if (map.optional("time").isPresent()) {
      nodes.problems().atKey(path + ".time", StreamJoinMessages.staticJoinWithTime(path));
      timeOk = false;
    }
    JoinType type =
        map.read(
            "type",
            n ->
                tables.keyword(
                    n, path + ".type", "join type", JoinType.values(), JoinType::keyword),
            JoinType.INNER);
    Size maxSize =
        map.read(
            "max-size", n -> sizes.positiveSize(n, path + ".max-size"), JoinSpec.DEFAULT_MAX_SIZE);
    Optional<List<String>> columns =
        map.read(
            "columns",
            n -> {
              List<String> picked = nodes.textList(n, path + ".columns");
              return picked == null ? null : Optional.of(picked);
            },
            Optional.empty());
    map.finish();
    if (table == null
        || !storageOk
        || on == null
        || !timeOk
        || type == null
        || maxSize == null
        || columns == null) {
      return null;
    }
    return new JoinSpec(table, Optional.ofNullable(storage), on, type, maxSize, columns);
  }

  private StreamJoinSpec streamJoin(YamlMap map, String path, SourceSpec main, Set<String> left) {
    boolean ok = true;
    for (String key : List.of("max-size", "columns")) {
      if (map.optional(key).isPresent()) {
        nodes.problems().atKey(path + "." + key, StreamJoinMessages.streamJoinWith(path, key));
        ok = false;
      }
    }
    InputSpec input =
        input(
            map.required("stream", "stream: { source: ..., format: ..., prefix: p_ }"), path, main);
    List<String> on = keys(map, path);
    StreamJoinType type = map.read("type", n -> type(n, path + ".type"), StreamJoinType.INNER);
    TimeCondition time = map.read("time", n -> time(n, path, input, left), TimeCondition.NONE);
    map.finish();
    if (!ok || input == null || on == null || type == null || time == null) {
      return null;
    }
    return new StreamJoinSpec(input, on, time, type);
  }

  private StreamJoinType type(Node node, String path) {
    String text = nodes.text(node, path);
    if (text != null && text.strip().equalsIgnoreCase("left-anti")) {
      nodes.fail(node, path, StreamJoinMessages.leftAnti(Problems.parent(path)));
      return null;
    }
    return nodes.keyword(
        node, path, "stream join type", StreamJoinType.values(), StreamJoinType::keyword);
  }

  /** {@code join[i].stream}; null (reported) when broken. */
  private InputSpec input(Node node, String join, SourceSpec main) {
    if (node == null) {
      return null;
    }
    String path = join + ".stream";
    YamlMap stream = nodes.map(node, path, "join[].stream");
    if (stream == null) {
      return null;
    }
    boolean ok = true;
    if (stream.optional("transform").isPresent()) {
      nodes.problems().atKey(path + ".transform", StreamJoinMessages.inputTransform(join));
      ok = false;
    }
    SourceReader reader = sizes.forStream(path, mainServers(main));
    SourceSpec source = reader.source(stream, tables);
    FormatSpec format = reader.format(stream, source);
    if (format != null) {
      ok &= checkDeclaredColumns(format, join, path + ".format." + format.keyword());
    }
    WatermarkSpec watermark =
        stream.read(
            "watermark", n -> query.inputWatermark(n, path + ".watermark"), (WatermarkSpec) null);
    boolean watermarkOk = watermark != null || !nodes.problems().declared(path + ".watermark");
    Node prefixNode = stream.required("prefix", "prefix: p_");
    String prefix =
        prefixNode == null ? null : nodes.nonEmptyText(prefixNode, path + ".prefix", "prefix");
    if (prefix != null && !PREFIX.matcher(prefix).matches()) {
      nodes.fail(prefixNode, path + ".prefix", StreamJoinMessages.badPrefix(prefix));
      prefix = null;
    }
    stream.finish();
    boolean formatOk = source instanceof DeltaSourceSpec || format != null;
    if (!ok || source == null || !formatOk || !watermarkOk || prefix == null) {
      return null;
    }
    return new InputSpec(
        source, Optional.ofNullable(format), Optional.ofNullable(watermark), prefix);
  }

  /** The main Kafka source's servers, a second Kafka input's default (null: no default). */
  private String mainServers(SourceSpec main) {
    if (main instanceof KafkaSourceSpec kafka) {
      return kafka.bootstrapServers();
    }
    // A broken main Kafka source is reported already: no second report for the missing default.
    return main == null && nodes.problems().declared("source.kafka") ? "(the main source's)" : null;
  }

  /** The second input's columns are declared (its keys and time are checked against them). */
  private boolean checkDeclaredColumns(FormatSpec format, String join, String path) {
    if (format.takesAllColumns()) {
      nodes
          .problems()
          .atKey(path + ".columns", StreamJoinMessages.inputTakesAllColumns(join, path));
      return false;
    }
    if (format.envelope().isDebezium()) {
      nodes.problems().atKey(path + ".envelope", StreamJoinMessages.inputEnvelope(join));
      return false;
    }
    return true;
  }

  private TimeCondition time(Node node, String join, InputSpec input, Set<String> left) {
    String text = nodes.nonEmptyText(node, join + ".time", "the time condition");
    if (text == null) {
      return null;
    }
    if (input == null) {
      return TimeCondition.NONE; // its columns are unknown; the input's problem is reported
    }
    Set<String> right =
        input.format().isEmpty()
            ? null
            : input.format().get().columns().stream()
                .map(c -> input.prefixed(c.name()))
                .collect(Collectors.toCollection(LinkedHashSet::new));
    try {
      return TimeCondition.parse(text, sides(left, right, input.prefix()));
    } catch (IllegalArgumentException e) {
      nodes.fail(node, join + ".time", StreamJoinMessages.time(join, e.getMessage()));
      return null;
    }
  }

  /**
   * Which side a column of the time condition is on: by the known columns of each side; a side
   * whose columns are only known at start (a Delta table) takes the names left to it (the right:
   * those with its prefix).
   */
  static Function<String, Optional<JoinSide>> sides(
      Set<String> left, Set<String> right, String prefix) {
    return name -> {
      if (right != null && right.contains(name)) {
        return Optional.of(JoinSide.RIGHT);
      }
      if (left != null && left.contains(name)) {
        return Optional.of(JoinSide.LEFT);
      }
      if (right == null && name.startsWith(prefix)) {
        return Optional.of(JoinSide.RIGHT);
      }
      return left == null ? Optional.of(JoinSide.LEFT) : Optional.empty();
    };
  }

  /**
   * The main input's columns after its transforms and stream-static joins, or null when not known
   * before start (a Delta source, a join adding every dimension column) or broken.
   */
  private static Set<String> leftColumns(
      FormatSpec format, List<TransformStep> transforms, List<JoinSpec> statics, boolean ok) {
    if (format == null || transforms == null || !ok || format.takesAllColumns()) {
      return null;
    }
    Set<String> columns = new LinkedHashSet<>();
    format.columns().forEach(c -> columns.add(c.name()));
    for (TransformStep step : transforms) {
      if (step instanceof TransformStep.Derive derive) {
        columns.addAll(derive.columns().keySet());
      }
    }
    columns.addAll(PipelineSpec.KAFKA_METADATA_COLUMNS);
    for (JoinSpec join : statics) {
      if (join.columns().isEmpty()) {
        return null;
      }
      columns.addAll(join.columns().get());
    }
    return columns;
  }

  private List<String> keys(YamlMap map, String path) {
    Node onNode = map.required("on", "on: [customer_id]");
    List<String> on = onNode == null ? null : nodes.textList(onNode, path + ".on");
    if (on != null && on.isEmpty()) {
      nodes.fail(onNode, path + ".on", Messages.empty("the key list"));
      return null;
    }
    return on;
  }
}
