package dev.tributary.config;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/** Which topics a source reads: {@code topics: [a, b]} or {@code topic-pattern: "orders-.*"}. */
public sealed interface TopicSelection {

  /** Returns the selection as written in the file, for checkpoint identity and messages. */
  String canonical();

  /**
   * An explicit list of topics.
   *
   * @param names the topic names, at least one, in declaration order
   */
  record Topics(List<String> names) implements TopicSelection {
    /** Copies the names and checks there is at least one. */
    public Topics {
      names = List.copyOf(names);
      if (names.isEmpty()) {
        throw new IllegalArgumentException("a topic list needs at least one topic");
      }
    }

    @Override
    public String canonical() {
      return "topics=" + names;
    }
  }

  /**
   * Every topic whose whole name matches a Java regular expression, including topics created later.
   *
   * @param regex the pattern as written; it compiles
   */
  record TopicPattern(String regex) implements TopicSelection {
    /** Checks the pattern compiles. */
    public TopicPattern {
      Objects.requireNonNull(regex, "regex");
      Pattern.compile(regex);
    }

    /** Returns the compiled pattern. */
    public Pattern pattern() {
      return Pattern.compile(regex);
    }

    @Override
    public String canonical() {
      return "topic-pattern=" + regex;
    }
  }
}
