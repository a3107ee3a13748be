package dev.tributary.service.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The parsed command line: a command, its {@code --options} (with or without a value) and its
 * positional arguments. Unknown options are an error, reported with exit code 2.
 */
record CliArguments(String command, Map<String, String> options, List<String> positional) {
  CliArguments {
    options = Map.copyOf(options);
    positional = List.copyOf(positional);
  }

  /**
   * @param flags options that take no value
   * @param valued options that take a value ({@code --name value} or {@code --name=value})
   */
  static CliArguments parse(String[] args, Set<String> flags, Set<String> valued) {
    if (args.length == 0) {
      throw new UsageException("no command given");
    }
    String command = args[0];
    Map<String, String> options = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        positional.add(arg);
        continue;
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (flags.contains(name)) {
        if (value != null) {
          throw new UsageException("option --" + name + " takes no value");
        }
        options.put(name, "true");
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.length) {
            throw new UsageException("option --" + name + " needs a value");
          }
          value = args[++i];
        }
        options.put(name, value);
      } else {
        throw new UsageException("unknown option --" + name + " for command '" + command + "'");
      }
    }
    return new CliArguments(command, options, positional);
  }

  boolean flag(String name) {
    return options.containsKey(name);
  }

  Optional<String> option(String name) {
    return Optional.ofNullable(options.get(name));
  }

  /** Thrown for a malformed command line; rendered with the usage text, exit code 2. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
