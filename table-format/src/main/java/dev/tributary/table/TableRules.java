package dev.tributary.table;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a table asks of every row appended to it, as another engine declared it: CHECK constraints
 * (table properties {@code delta.constraints.<name>} = a SQL boolean expression), column invariants
 * (field metadata {@code delta.invariants} = {@code {"expression": {"expression": "<sql>"}}}),
 * generated columns (field metadata {@code delta.generationExpression}) and identity columns (field
 * metadata {@code delta.identity.start}, {@code .step}, {@code .highWaterMark}, {@code
 * .allowExplicitInsert}). This class only reads them (PROTOCOL.md, "Column Invariants", "Check
 * Constraints", "Generated Columns", "Identity Columns"); evaluating the SQL is the caller's job
 * (the service compiles it), moving an identity column's high-water mark is {@link
 * AppendTransaction#moveIdentityHighWaterMarks}'s.
 *
 * @param checks CHECK constraints and invariants, constraints first (by name), then invariants in
 *     schema order
 * @param generated generated columns in schema order
 * @param identities identity columns in schema order
 */
public record TableRules(List<Check> checks, List<Generated> generated, List<Identity> identities) {
  /** Table property prefix of a CHECK constraint. */
  public static final String CONSTRAINT_PREFIX = "delta.constraints.";

  /** Field metadata of a column invariant. */
  public static final String INVARIANTS = "delta.invariants";

  /** Field metadata of a generated column. */
  public static final String GENERATION_EXPRESSION = "delta.generationExpression";

  /** Field metadata of an identity column's first value. */
  public static final String IDENTITY_START = "delta.identity.start";

  /** Field metadata of an identity column's increment (never 0). */
  public static final String IDENTITY_STEP = "delta.identity.step";

  /** Field metadata of the last identity value a writer assigned (absent before the first). */
  public static final String IDENTITY_HIGH_WATER_MARK = "delta.identity.highWaterMark";

  /** Field metadata: whether a writer may give the column explicit values. */
  public static final String IDENTITY_ALLOW_EXPLICIT_INSERT = "delta.identity.allowExplicitInsert";

  private static final ObjectMapper JSON = new ObjectMapper();

  public TableRules {
    checks = List.copyOf(checks);
    generated = List.copyOf(generated);
    identities = List.copyOf(identities);
  }

  /**
   * A rule every appended row must satisfy: Delta (Spark's {@code CheckDeltaInvariant}) refuses a
   * row on which the expression is false <em>or null</em>, for constraints and invariants alike.
   *
   * @param kind {@code CHECK constraint} or {@code invariant}
   * @param name the constraint's name, or the invariant's column path (dotted for nested fields)
   * @param expression the SQL text as the table holds it
   */
  public record Check(String kind, String name, String expression) {
    public Check {
      Objects.requireNonNull(expression, "expression");
    }

    /** How messages name it: {@code CHECK constraint positive (amount > 0)}. */
    public String describe() {
      return kind + " " + name + " (" + expression + ")";
    }
  }

  /** A column whose value is {@code expression} over the row's other columns. */
  public record Generated(String column, String expression) {}

  /**
   * An identity column: values {@code start}, {@code start + step}, ... after {@code
   * highWaterMark}, the last value assigned (null before the first).
   */
  public record Identity(
      String column, long start, long step, Long highWaterMark, boolean allowExplicitInsert) {
    public Identity {
      if (step == 0) {
        throw new IllegalArgumentException("identity column " + column + " has step 0");
      }
    }

    /** The first value the next writer assigns: {@code start}, or one step after the mark. */
    public long next() {
      return highWaterMark == null ? start : Math.addExact(highWaterMark, step);
    }

    /** This column without its high-water mark: what two versions of a rule compare by. */
    Identity withoutMark() {
      return new Identity(column, start, step, null, allowExplicitInsert);
    }
  }

  /** The rules of {@code snapshot}'s schema and properties. */
  public static TableRules of(Snapshot snapshot) {
    return of(snapshot.schema(), snapshot.properties());
  }

  /**
   * The rules declared by {@code schema}'s field metadata and {@code properties}.
   *
   * @throws TableException if an invariant is not the JSON the protocol describes, or identity
   *     metadata is not numeric
   */
  public static TableRules of(StructType schema, Map<String, String> properties) {
    List<Check> checks = new ArrayList<>();
    new TreeMap<>(properties)
        .forEach(
            (key, value) -> {
              if (key.startsWith(CONSTRAINT_PREFIX)) {
                checks.add(
                    new Check(
                        "CHECK constraint", key.substring(CONSTRAINT_PREFIX.length()), value));
              }
            });
    List<Generated> generated = new ArrayList<>();
    List<Identity> identities = new ArrayList<>();
    collect(schema, "", checks, generated, identities);
    return new TableRules(checks, generated, identities);
  }

  private static void collect(
      StructType schema,
      String prefix,
      List<Check> checks,
      List<Generated> generated,
      List<Identity> identities) {
    for (StructField f : schema.fields()) {
      String path = prefix + f.name();
      Map<String, Object> m = f.metadata();
      if (m.get(INVARIANTS) instanceof String invariant) {
        checks.add(new Check("invariant", path, invariantExpression(path, invariant)));
      }
      if (prefix.isEmpty() && m.get(GENERATION_EXPRESSION) instanceof String expression) {
        generated.add(new Generated(f.name(), expression));
      }
      if (prefix.isEmpty() && m.containsKey(IDENTITY_START)) {
        identities.add(
            new Identity(
                f.name(),
                number(f.name(), m, IDENTITY_START),
                number(f.name(), m, IDENTITY_STEP),
                m.containsKey(IDENTITY_HIGH_WATER_MARK)
                    ? number(f.name(), m, IDENTITY_HIGH_WATER_MARK)
                    : null,
                Boolean.TRUE.equals(m.get(IDENTITY_ALLOW_EXPLICIT_INSERT))
                    || "true".equals(m.get(IDENTITY_ALLOW_EXPLICIT_INSERT))));
      }
      if (f.type() instanceof StructType nested) {
        collect(nested, path + ".", checks, generated, identities);
      }
    }
  }

  private static String invariantExpression(String column, String json) {
    try {
      JsonNode n = JSON.readTree(json).path("expression").path("expression");
      if (n.isTextual()) {
        return n.asText();
      }
    } catch (IOException e) {
      // below
    }
    throw new TableException(
        "The invariant of column "
            + column
            + " is not {\"expression\": {\"expression\": \"<sql>\"}} as PROTOCOL.md describes: "
            + json);
  }

  private static long number(String column, Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (v instanceof Number n) {
      return n.longValue();
    }
    try {
      return Long.parseLong(String.valueOf(v));
    } catch (NumberFormatException e) {
      throw new TableException(
          "Identity column " + column + " has " + key + " = " + v + ", which is not a number");
    }
  }

  /** True if the table declares no rule: an append needs nothing of it. */
  public boolean isEmpty() {
    return checks.isEmpty() && generated.isEmpty() && identities.isEmpty();
  }

  /** The identity column of that name, or null. */
  public Identity identity(String column) {
    return identities.stream().filter(i -> i.column().equals(column)).findFirst().orElse(null);
  }

  /**
   * True if {@code other} declares the same rules, high-water marks aside (they move with every
   * commit that assigns identity values): rules compiled for this one still hold for it.
   */
  public boolean sameRulesAs(TableRules other) {
    return checks.equals(other.checks)
        && generated.equals(other.generated)
        && identities.stream()
            .map(Identity::withoutMark)
            .toList()
            .equals(other.identities.stream().map(Identity::withoutMark).toList());
  }
}
