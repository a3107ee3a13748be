package dev.tributary.service.cli;

import dev.tributary.service.compare.CompareOptions;
import dev.tributary.service.compare.CompareRefusal;
import dev.tributary.service.compare.ComparedTable;
import dev.tributary.service.compare.ComparisonResult;
import dev.tributary.service.compare.Comparisons;
import dev.tributary.service.compare.TableRef;
import dev.tributary.storage.S3Settings;
import java.io.PrintStream;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code tributary compare TABLE_A[@version] TABLE_B[@version] [--key a,b] [--where EXPR]}: the
 * rows of two Delta tables compared (docs/DESIGN.md, "Comparing tables"). Exit 0 when they hold the
 * same rows, 1 when not, 2 when the comparison cannot be made as asked.
 *
 * <p>S3 locations are reached with the settings of the environment: {@code AWS_ENDPOINT_URL_S3} or
 * {@code AWS_ENDPOINT_URL} (an S3-compatible server, then addressed path-style), {@code AWS_REGION}
 * or {@code AWS_DEFAULT_REGION}, and the AWS default credential chain ({@code AWS_ACCESS_KEY_ID}
 * and {@code AWS_SECRET_ACCESS_KEY}, a profile, an instance role).
 */
final class CompareCommand {
  private CompareCommand() {}

  static int run(CliArguments args, PrintStream out, PrintStream err) throws Exception {
    return run(args, out, err, System.getenv());
  }

  static int run(CliArguments args, PrintStream out, PrintStream err, Map<String, String> env)
      throws Exception {
    if (args.positional().size() != 2) {
      throw new CliArguments.UsageException(
          "compare needs two tables: compare TABLE_A[@version] TABLE_B[@version]");
    }
    List<String> key =
        args.option("key")
            .map(k -> Arrays.stream(k.split(",")).map(String::strip).toList())
            .orElse(List.of());
    if (key.stream().anyMatch(String::isEmpty)) {
      throw new CliArguments.UsageException("--key needs column names separated by commas");
    }
    try {
      TableRef refA = TableRef.parse(args.positional().get(0));
      TableRef refB = TableRef.parse(args.positional().get(1));
      S3Settings s3 = s3Settings(env);
      try (ComparedTable a = ComparedTable.open(refA, s3);
          ComparedTable b = ComparedTable.open(refB, s3)) {
        ComparisonResult result =
            Comparisons.compare(a, b, key, args.option("where"), CompareOptions.defaults());
        print(a, b, result, out);
        return result.equal() ? 0 : 1;
      }
    } catch (CompareRefusal | IllegalArgumentException e) {
      err.println("tributary compare: " + e.getMessage());
      return 2;
    }
  }

  /** The S3 settings the environment gives (see the class comment). */
  static S3Settings s3Settings(Map<String, String> env) {
    S3Settings s3 = S3Settings.defaults();
    Optional<String> endpoint =
        nonBlank(env.get("AWS_ENDPOINT_URL_S3")).or(() -> nonBlank(env.get("AWS_ENDPOINT_URL")));
    if (endpoint.isPresent()) {
      s3 = s3.withEndpoint(URI.create(endpoint.get())).withPathStyleAccess();
    }
    Optional<String> region =
        nonBlank(env.get("AWS_REGION")).or(() -> nonBlank(env.get("AWS_DEFAULT_REGION")));
    if (region.isPresent()) {
      s3 = s3.withRegion(region.get());
    }
    Optional<String> accessKey = nonBlank(env.get("AWS_ACCESS_KEY_ID"));
    Optional<String> secretKey = nonBlank(env.get("AWS_SECRET_ACCESS_KEY"));
    if (accessKey.isPresent() && secretKey.isPresent()) {
      // the keys the default chain would find too, read here so that the caller's environment
      // (not only the process's) decides
      s3 = s3.withCredentials(accessKey.get(), secretKey.get());
    }
    return s3;
  }

  private static Optional<String> nonBlank(String value) {
    return Optional.ofNullable(value).filter(v -> !v.isBlank());
  }

  private static void print(ComparedTable a, ComparedTable b, ComparisonResult r, PrintStream out) {
    out.println("compare A " + a.name() + " with B " + b.name());
    out.println("columns: (" + String.join(", ", a.schema().fieldNames()) + ")");
    out.println("rows: A " + r.rowsA() + ", B " + r.rowsB());
    out.println("only in A: " + rows(r.onlyInA()));
    samples(r.samplesOnlyInA(), r.onlyInA(), out);
    out.println("only in B: " + rows(r.onlyInB()));
    samples(r.samplesOnlyInB(), r.onlyInB(), out);
    r.byKey()
        .ifPresent(
            k -> {
              out.println(
                  "by key ("
                      + String.join(", ", k.key())
                      + "): "
                      + keys(k.keysOnlyInA())
                      + " only in A, "
                      + keys(k.keysOnlyInB())
                      + " only in B, "
                      + keys(k.changedKeys())
                      + " changed (same key, different other columns)");
              for (ComparisonResult.Change c : k.changes()) {
                out.println(
                    "  changed "
                        + c.key()
                        + ": A "
                        + (c.rowA() == null ? "-" : c.rowA())
                        + "  B "
                        + (c.rowB() == null ? "-" : c.rowB()));
              }
              if (k.changedKeys() > k.changes().size()) {
                out.println("  ...");
              }
              duplicates("A", k.duplicateKeysA(), out);
              duplicates("B", k.duplicateKeysB(), out);
            });
    out.println(r.equal() ? "result: equal" : "result: different");
  }

  private static void samples(List<String> samples, long total, PrintStream out) {
    samples.forEach(s -> out.println("  " + s));
    if (total > samples.size()) {
      out.println("  ...");
    }
  }

  private static void duplicates(String side, long count, PrintStream out) {
    if (count > 0) {
      out.println(
          "  note: "
              + keys(count)
              + " with more than one row in "
              + side
              + " (the key is not unique there)");
    }
  }

  private static String rows(long n) {
    return n + (n == 1 ? " row" : " rows");
  }

  private static String keys(long n) {
    return n + (n == 1 ? " key" : " keys");
  }
}
