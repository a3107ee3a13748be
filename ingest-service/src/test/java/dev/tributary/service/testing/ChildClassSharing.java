package dev.tributary.service.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.zip.Deflater;

/**
 * Class-data sharing for the child JVMs of one test JVM: the first child of each main class dumps
 * the classes it loaded into a dynamic archive at its exit ({@code -XX:ArchiveClassesAtExit}, a
 * halt at a crash point included), and the children after it map that archive instead of loading
 * and verifying those classes again ({@code -XX:SharedArchiveFile}). A child costs mostly its
 * start-up (docs/TESTING.md "Where the time goes"), and the archive takes a large share off it.
 *
 * <p>The JVM archives classes from jar files only, and refuses to dump with a non-empty directory
 * on the class path (Maven's {@code target/classes}, {@code target/test-classes}): so the children
 * of a test JVM run with each such directory packed into a jar of the test JVM's own, once, in its
 * place on the class path (same order, same classes; resources are read as streams either way).
 *
 * <p>Safe with children started at once and with test JVMs side by side: each test JVM has its own
 * archive directory, a dump goes to a name of its own and is renamed into place only after a JVM
 * started with {@code -Xshare:on} has mapped it (a child killed in the middle of its dump leaves a
 * file that fails this check, and is deleted). Until an archive is in place, or when no archive can
 * be made, children start without one, as before; the JVM's own messages about the archive are off,
 * so a child's output is the same either way.
 */
final class ChildClassSharing {
  /**
   * The main classes whose children share an archive: the command line's, started many times by the
   * kill -9 suites. The broker and the schema registry start once per test JVM and live to its end,
   * so an archive would only cost them a dump at exit; they start as before.
   */
  private static final Set<String> SHORT_LIVED = Set.of("dev.tributary.service.cli.Main");

  /** Dumps tried per main class before giving up on it for this test JVM. */
  private static final int ATTEMPTS = 2;

  /** The JVM's messages about archives (a dump's skipped classes, a mismatch) stay out of logs. */
  private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");

  private static final Path DIR = directory();
  private static final Map<String, State> STATES = new ConcurrentHashMap<>();
  private static final AtomicInteger DUMPS = new AtomicInteger();

  private ChildClassSharing() {}

  /** Per main class: whether a dump is running, how many were tried. */
  private static final class State {
    boolean dumping;
    int attempts;
  }

  /**
   * The options a child of {@code mainClass} starts with: the archive when there is one; else, if
   * no other child is making it, the options to make it (then {@link #started} must follow).
   */
  static Started options(String mainClass, List<String> quickStart) {
    String classpath = SHORT_LIVED.contains(mainClass) ? classpath() : null;
    if (classpath == null) {
      return new Started(List.of(), ChildJvm.classpath(), null);
    }
    Path archive = archive(mainClass);
    if (Files.exists(archive)) {
      List<String> options = new ArrayList<>(QUIET);
      options.add("-XX:SharedArchiveFile=" + archive);
      return new Started(options, classpath, null);
    }
    State state = STATES.computeIfAbsent(mainClass, c -> new State());
    synchronized (state) {
      if (state.dumping || state.attempts >= ATTEMPTS) {
        return new Started(List.of(), classpath, null);
      }
      state.dumping = true;
      state.attempts++;
    }
    Path dump = DIR.resolve(archive.getFileName() + "." + DUMPS.incrementAndGet() + ".tmp");
    List<String> options = new ArrayList<>(QUIET);
    options.add("-XX:ArchiveClassesAtExit=" + dump);
    return new Started(
        options, classpath, new Dump(mainClass, dump, archive, quickStart, classpath));
  }

  private static String packed;

  /**
   * The test class path with each directory replaced by a jar of it (made at the first call); null
   * when sharing is off or a jar cannot be made.
   */
  private static synchronized String classpath() {
    if (DIR == null) {
      return null;
    }
    if (packed == null) {
      try {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String entry : ChildJvm.classpath().split(File.pathSeparator)) {
          Path path = Path.of(entry);
          if (Files.isDirectory(path)) {
            Path jar = DIR.resolve("classpath-" + n++ + "-" + path.getFileName() + ".jar");
            pack(path, jar);
            entries.add(jar.toString());
          } else {
            entries.add(entry);
          }
        }
        packed = String.join(File.pathSeparator, entries);
      } catch (IOException | RuntimeException e) {
        packed = "";
      }
    }
    return packed.isEmpty() ? null : packed;
  }

  /** Packs a class directory into a jar, uncompressed (read once per child, written once). */
  private static void pack(Path dir, Path jar) throws IOException {
    try (var out = new JarOutputStream(Files.newOutputStream(jar));
        var files = Files.walk(dir)) {
      out.setLevel(Deflater.NO_COMPRESSION);
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        String name = dir.relativize(file).toString().replace(File.separatorChar, '/');
        if (name.isEmpty()) {
          continue;
        }
        if (Files.isDirectory(file)) {
          out.putNextEntry(new JarEntry(name + "/"));
        } else {
          out.putNextEntry(new JarEntry(name));
          Files.copy(file, out);
        }
        out.closeEntry();
      }
    }
  }

  /** The options and class path for a child, and the dump it makes (null: none). */
  record Started(List<String> options, String classpath, Dump dump) {
    /** Once the child has exited, checks its dump and puts it in place. */
    void started(Process child) {
      if (dump != null) {
        child.onExit().thenRun(dump::install);
      }
    }

    /** The child did not start: another may make the archive. */
    void abandoned() {
      if (dump != null) {
        dump.install();
      }
    }
  }

  /** A dump in the making: where it goes, and the archive it becomes once it is known to map. */
  record Dump(
      String mainClass, Path file, Path archive, List<String> quickStart, String classpath) {
    void install() {
      try {
        if (Files.exists(file) && maps()) {
          Files.move(file, archive, StandardCopyOption.ATOMIC_MOVE);
        }
      } catch (IOException | RuntimeException e) {
        // no archive: the next child tries again, or children go on without one
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        try {
          Files.deleteIfExists(file);
        } catch (IOException ignored) {
          // a leftover in the test JVM's own temporary directory
        }
        State state = STATES.get(mainClass);
        synchronized (state) {
          state.dumping = false;
        }
      }
    }

    /** Whether a JVM that must use the archive ({@code -Xshare:on}) starts with it. */
    private boolean maps() throws IOException, InterruptedException {
      List<String> command = new ArrayList<>();
      command.add(ChildJvm.javaBinary().toString());
      command.addAll(quickStart);
      command.addAll(QUIET);
      command.add("-Xshare:on");
      command.add("-XX:SharedArchiveFile=" + file);
      command.add("-cp");
      command.add(classpath);
      command.add("-version");
      Process check =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!check.waitFor(60, TimeUnit.SECONDS)) {
        check.destroyForcibly().waitFor();
        return false;
      }
      return check.exitValue() == 0;
    }
  }

  private static Path archive(String mainClass) {
    return DIR.resolve(mainClass.replaceAll("[^A-Za-z0-9.]", "_") + ".jsa");
  }

  /** This test JVM's archive directory, removed at its exit; null when none can be made. */
  private static Path directory() {
    if (Boolean.getBoolean("tributary.test.child-cds.off")) {
      return null;
    }
    try {
      Path dir = Files.createTempDirectory("tributary-child-cds-");
      dir.toFile().deleteOnExit();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try (var files = Files.list(dir)) {
                      files.forEach(f -> f.toFile().delete());
                    } catch (IOException ignored) {
                      // the temporary directory is the system's to clean
                    }
                    dir.toFile().delete();
                  }));
      return dir;
    } catch (IOException e) {
      return null;
    }
  }
}
