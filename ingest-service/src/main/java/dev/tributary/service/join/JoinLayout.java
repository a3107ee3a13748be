package dev.tributary.service.join;

import dev.tributary.config.JoinSpec;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Where one join finds its keys and what it adds, resolved from the stream's schema and the
 * dimension table's schema at start. The added columns are fixed then: a later version of the
 * dimension must still have them, with the same types ({@link #check}).
 *
 * @param where the join's key path in the declaration, such as {@code join[0]}
 * @param streamKeys the positions of the {@code on} columns in a stream row
 * @param dimensionKeys the positions of the {@code on} columns in a dimension row
 * @param added the columns the join appends to the stream row, in the dimension's order
 */
public record JoinLayout(
    String where, int[] streamKeys, int[] dimensionKeys, List<StructField> added) {

  /** Copies the added columns. */
  public JoinLayout {
    added = List.copyOf(added);
  }

  /**
   * Resolves {@code join} (the {@code index}-th of the pipeline) against the schemas: every key
   * must be a primitive, non-binary column of both, with the same type; the added columns are the
   * picked ones, else every dimension column but the keys and {@code _kafka_*} columns, and none
   * may have the name of a stream column.
   *
   * @throws JoinException naming the pipeline, the join and the column
   */
  public static JoinLayout resolve(
      String pipeline, int index, JoinSpec join, StructType stream, StructType dimension) {
    String where = "join[" + index + "]";
    int[] streamKeys = new int[join.on().size()];
    int[] dimensionKeys = new int[join.on().size()];
    for (int k = 0; k < join.on().size(); k++) {
      String key = join.on().get(k);
      streamKeys[k] = stream.indexOf(key);
      dimensionKeys[k] = dimension.indexOf(key);
      if (streamKeys[k] < 0) {
        // validate checks this already; kept for joins built without a validated declaration
        throw JoinErrors.missingStreamKey(pipeline, where, key, stream.fieldNames());
      }
      if (dimensionKeys[k] < 0) {
        throw JoinErrors.missingKey(pipeline, where, join.path(), key, dimension.fieldNames());
      }
      DataType streamType = stream.fields().get(streamKeys[k]).type();
      DataType dimensionType = dimension.fields().get(dimensionKeys[k]).type();
      if (streamType instanceof StructType || streamType == PrimitiveType.BINARY) {
        throw JoinErrors.keyType(pipeline, where, key, streamType);
      }
      if (!streamType.equals(dimensionType)) {
        throw JoinErrors.keyTypes(pipeline, where, join.path(), key, streamType, dimensionType);
      }
    }
    List<StructField> added = new ArrayList<>();
    if (join.columns().isPresent()) {
      for (String column : join.columns().get()) {
        StructField field =
            dimension
                .field(column)
                .orElseThrow(
                    () ->
                        JoinErrors.missingColumn(
                            pipeline, where, join.path(), column, dimension.fieldNames()));
        added.add(field);
      }
      // the declared order is the dimension's order (docs/PIPELINE_REFERENCE.md), whatever order
      // columns lists
      added.sort(Comparator.comparingInt(f -> dimension.indexOf(f.name())));
    } else {
      for (StructField field : dimension.fields()) {
        if (!join.on().contains(field.name()) && !field.name().startsWith("_kafka_")) {
          added.add(field);
        }
      }
    }
    List<StructField> out = new ArrayList<>();
    for (StructField field : added) {
      if (stream.indexOf(field.name()) >= 0) {
        throw JoinErrors.clash(pipeline, where, join.path(), field.name());
      }
      // a left join leaves them null, and a dimension column may hold nulls anyway
      out.add(StructField.nullable(field.name(), field.type()));
    }
    return new JoinLayout(where, streamKeys, dimensionKeys, out);
  }

  /** The positions of the added columns in a row of {@code dimension}. */
  int[] valueColumns(StructType dimension) {
    int[] positions = new int[added.size()];
    for (int i = 0; i < added.size(); i++) {
      positions[i] = dimension.indexOf(added.get(i).name());
    }
    return positions;
  }

  /**
   * Checks a later version of the dimension still fits: the keys and added columns exist with their
   * types, at whatever positions.
   *
   * @return the layout with the dimension positions of that version
   * @throws JoinException naming the column that went missing or changed type
   */
  JoinLayout check(
      String pipeline,
      String path,
      long version,
      List<String> on,
      StructType stream,
      StructType dimension) {
    int[] keys = new int[on.size()];
    for (int k = 0; k < on.size(); k++) {
      keys[k] = dimension.indexOf(on.get(k));
      DataType expected = stream.fields().get(streamKeys[k]).type();
      if (keys[k] < 0) {
        throw JoinErrors.changed(pipeline, where, path, version, on.get(k), "(a join key) is gone");
      }
      if (!dimension.fields().get(keys[k]).type().equals(expected)) {
        throw JoinErrors.changed(
            pipeline,
            where,
            path,
            version,
            on.get(k),
            "(a join key) is now "
                + dimension.fields().get(keys[k]).type().deltaName()
                + " instead of "
                + expected.deltaName());
      }
    }
    for (StructField field : added) {
      var now = dimension.field(field.name());
      if (now.isEmpty()) {
        throw JoinErrors.changed(pipeline, where, path, version, field.name(), "is gone");
      }
      if (!now.get().type().equals(field.type())) {
        throw JoinErrors.changed(
            pipeline,
            where,
            path,
            version,
            field.name(),
            "is now " + now.get().type().deltaName() + " instead of " + field.type().deltaName());
      }
    }
    return new JoinLayout(where, streamKeys, keys, added);
  }
}
