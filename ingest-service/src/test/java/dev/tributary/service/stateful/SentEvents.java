package dev.tributary.service.stateful;

import dev.tributary.checkpoint.OffsetsEntry;
import dev.tributary.service.engine.CompositeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a stream-join test sent to its two topics: each topic's events by partition in offset order
 * (null: a malformed record), encoded as the JSON values the seed pipelines read ({@link
 * JoinOracle.Event#value}). It lists the malformed records as the quarantine table must hold them
 * and turns a checkpoint's offsets entry into the {@link JoinOracle.Batch} it read.
 */
final class SentEvents {
  /** The quarantine table's {@code input} of a main (left) record and of a second-input one. */
  static final String MAIN_INPUT = "main";

  static final String SECOND_INPUT = "join[0]";

  private final Map<String, Map<Integer, List<JoinOracle.Event>>> sent = new HashMap<>();
  private final String leftTopic;
  private final String rightTopic;

  /**
   * @param leftTopic the main input's topic
   * @param rightTopic the second input's (the join's stream) topic
   */
  SentEvents(String leftTopic, String rightTopic) {
    this.leftTopic = Objects.requireNonNull(leftTopic);
    this.rightTopic = Objects.requireNonNull(rightTopic);
  }

  /**
   * Records {@code e} (null: a malformed record) as the next offset of the topic's partition.
   *
   * @return the record's value, to be sent there next
   */
  String add(String topic, int partition, JoinOracle.Event e) {
    List<JoinOracle.Event> events = events(topic, partition);
    events.add(e);
    return JoinOracle.Event.value(e, events.size());
  }

  /** Every well-formed event sent. */
  long wellFormed() {
    return sent.values().stream()
        .flatMap(m -> m.values().stream())
        .mapToLong(l -> l.stream().filter(Objects::nonNull).count())
        .sum();
  }

  /** How many records (malformed ones too) a topic holds, over all its partitions. */
  int records(String topic) {
    return sent.getOrDefault(topic, Map.of()).values().stream().mapToInt(List::size).sum();
  }

  /**
   * Each partition's end as a checkpoint names it ({@code <topic>/<partition>}, the second input's
   * topic with {@link CompositeSource#TOPIC_PREFIX}): where a batch that read everything ends.
   */
  Map<String, Long> ends() {
    Map<String, Long> ends = new HashMap<>();
    sent.forEach(
        (topic, partitions) ->
            partitions.forEach(
                (p, events) ->
                    ends.put(
                        (topic.equals(rightTopic) ? CompositeSource.TOPIC_PREFIX : "")
                            + topic
                            + "/"
                            + p,
                        (long) events.size())));
    return ends;
  }

  /** Every malformed record as {@code <input> <topic>/<partition>/<offset>}, as quarantined. */
  List<String> malformed() {
    List<String> bad = new ArrayList<>();
    sent.forEach(
        (topic, partitions) ->
            partitions.forEach(
                (p, events) -> {
                  for (int o = 0; o < events.size(); o++) {
                    if (events.get(o) == null) {
                      String input = topic.equals(rightTopic) ? SECOND_INPUT : MAIN_INPUT;
                      bad.add(input + " " + topic + "/" + p + "/" + o);
                    }
                  }
                }));
    return bad;
  }

  /** The oracle's batch of one offsets entry: its well-formed events of each input, in order. */
  JoinOracle.Batch batch(OffsetsEntry entry) {
    List<JoinOracle.Event> left = new ArrayList<>();
    List<JoinOracle.Event> right = new ArrayList<>();
    entry
        .ranges()
        .forEach(
            (p, r) -> {
              boolean second = p.topic().startsWith(CompositeSource.TOPIC_PREFIX);
              String topic = second ? rightTopic : leftTopic;
              List<JoinOracle.Event> events = events(topic, p.partition());
              for (long o = r.start(); o < r.end(); o++) {
                JoinOracle.Event e = events.get((int) o);
                if (e != null) {
                  (second ? right : left).add(e);
                }
              }
            });
    return new JoinOracle.Batch(
        left, right, entry.watermarkMicros().orElse(0), entry.lateWatermarkMicros().orElse(0));
  }

  private List<JoinOracle.Event> events(String topic, int partition) {
    return sent.computeIfAbsent(topic, t -> new HashMap<>())
        .computeIfAbsent(partition, p -> new ArrayList<>());
  }
}
