package dev.tributary.service.parse.avro;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.EpochUnit;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.PrimitiveType;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * One writer schema compiled for schema evolution (docs/SCHEMA_EVOLUTION.md), once per schema id,
 * used only when {@code schema-evolution} is on: unlike {@link WriterProjection}, the whole writer
 * record is read (what the declared columns skip is what evolution keeps), then each writer field
 * goes to its declared column (same converters as the projection), or is reported as a new
 * top-level field, or is rescued as JSON ({@link AvroJson}). A value that does not fit its declared
 * column is rescued with the column left null when rescue is on, else the record fails as without
 * evolution.
 */
final class AvroEvolution {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final int id;
  private final GenericDatumReader<Object> reader;
  private final StructNode top;

  AvroEvolution(int id, Schema writer, StructType declared, Map<String, EpochUnit> units) {
    this.id = id;
    this.reader = new GenericDatumReader<>(writer);
    this.top = new StructNode(id, "", writer, declared, units);
  }

  /** What one read produced: the row and the extras (null when none). */
  record Read(Object[] row, DecodedExtras extras) {}

  /** Decodes the Avro body of {@code length} bytes from {@code offset}. */
  Read read(
      byte[] bytes, int offset, int length, int width, boolean rescue, boolean reportNewFields)
      throws IOException {
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, offset, length, null);
    Object datum = reader.read(null, decoder);
    if (!decoder.isEnd()) {
      throw new AvroMisfit(AvroErrors.trailing(id));
    }
    Found found = new Found(rescue, reportNewFields);
    Object[] row = datum == null ? null : top.convert(datum, found, "", "");
    return new Read(row == null ? new Object[width] : row, found.extras());
  }

  /**
   * The column type and value of a new top-level field for {@code mode: add-columns}, the same four
   * types the JSON path infers: int and long are long, float and double double, boolean boolean,
   * and everything else string: strings, enums and uuids as their text, dates, times and timestamps
   * as ISO-8601 text, decimals as their exact text, bytes as base64, records, arrays and maps as
   * their JSON text. Null for a value no column of those types holds (NaN, infinities): then it is
   * rescued.
   */
  static DecodedExtras.NewField newField(String name, Schema s, Object value) {
    if (s.getType() == Schema.Type.UNION) {
      s = s.getTypes().get(GenericData.get().resolveUnion(s, value));
    }
    LogicalType logical = s.getLogicalType();
    return switch (s.getType()) {
      case INT, LONG -> {
        String time = AvroJson.time(logical, ((Number) value).longValue());
        yield time != null
            ? new DecodedExtras.NewField(name, PrimitiveType.STRING, time, false)
            : new DecodedExtras.NewField(
                name, PrimitiveType.LONG, ((Number) value).longValue(), false);
      }
      case FLOAT, DOUBLE -> {
        double d = ((Number) value).doubleValue();
        yield Double.isFinite(d)
            ? new DecodedExtras.NewField(name, PrimitiveType.DOUBLE, d, false)
            : null;
      }
      case BOOLEAN -> new DecodedExtras.NewField(name, PrimitiveType.BOOLEAN, value, false);
      case STRING, ENUM, BYTES, FIXED -> textField(name, s, value);
      case RECORD, ARRAY, MAP ->
          new DecodedExtras.NewField(
              name, PrimitiveType.STRING, AvroJson.of(s, value).toString(), true);
      case NULL, UNION -> null;
    };
  }

  private static DecodedExtras.NewField textField(String name, Schema s, Object value) {
    JsonNode json = AvroJson.of(s, value);
    String text = json.isTextual() ? json.textValue() : json.toString();
    return new DecodedExtras.NewField(name, PrimitiveType.STRING, text, false);
  }

  /** The extras of one record, collected as its fields are converted. */
  private static final class Found {
    final boolean rescue;
    final boolean reportNewFields;
    ObjectNode rescued;
    List<DecodedExtras.NewField> newFields;

    Found(boolean rescue, boolean reportNewFields) {
      this.rescue = rescue;
      this.reportNewFields = reportNewFields;
    }

    /** An undeclared writer field with a non-null value. */
    void undeclared(String structPath, String name, Schema s, Object value) {
      if (reportNewFields && structPath.isEmpty()) {
        DecodedExtras.NewField f = newField(name, s, value);
        if (f != null) {
          if (newFields == null) {
            newFields = new ArrayList<>(2);
          }
          newFields.add(f);
          return;
        }
      }
      if (rescue) {
        keep(structPath, name, s, value);
      }
    }

    void keep(String structPath, String name, Schema s, Object value) {
      ObjectNode at = rescued == null ? (rescued = NODES.objectNode()) : rescued;
      if (!structPath.isEmpty()) {
        for (String segment : structPath.split("\\.")) {
          JsonNode child = at.get(segment);
          at = child instanceof ObjectNode o ? o : at.putObject(segment);
        }
      }
      at.set(name, AvroJson.of(s, value));
    }

    DecodedExtras extras() {
      return rescued == null && newFields == null
          ? null
          : new DecodedExtras(newFields == null ? List.of() : newFields, rescued);
    }
  }

  /**
   * A declared struct read from a writer record, a union holding records, or anything else (a
   * misfit).
   */
  private static final class StructNode {
    private final Schema writer;
    private final RecordNode record;
    private final RecordNode[] branches;
    private final AvroMisfit[] branchMisfits;
    private final AvroMisfit misfit;

    StructNode(
        int id, String path, Schema writer, StructType declared, Map<String, EpochUnit> units) {
      this.writer = writer;
      if (writer.getType() == Schema.Type.RECORD) {
        this.record = new RecordNode(id, path, writer, declared, units);
        this.branches = null;
        this.branchMisfits = null;
        this.misfit = null;
      } else if (writer.getType() == Schema.Type.UNION) {
        int n = writer.getTypes().size();
        this.record = null;
        this.branches = new RecordNode[n];
        this.branchMisfits = new AvroMisfit[n];
        for (int i = 0; i < n; i++) {
          Schema branch = writer.getTypes().get(i);
          if (branch.getType() == Schema.Type.RECORD) {
            branches[i] = new RecordNode(id, path, branch, declared, units);
          } else {
            branchMisfits[i] = AvroErrors.misfit(id, path, branch, declared);
          }
        }
        this.misfit = null;
      } else {
        this.record = null;
        this.branches = null;
        this.branchMisfits = null;
        this.misfit = AvroErrors.misfit(id, path, writer, declared);
      }
    }

    /** The row of a non-null value; a misfit is rescued under {@code structPath.name} or thrown. */
    Object[] convert(Object value, Found found, String structPath, String name) {
      RecordNode node = record;
      AvroMisfit problem = misfit;
      if (branches != null) {
        int b = GenericData.get().resolveUnion(writer, value);
        node = branches[b];
        problem = branchMisfits[b];
      }
      if (node != null) {
        return node.convert((IndexedRecord) value, found);
      }
      if (!found.rescue || name.isEmpty()) {
        throw problem;
      }
      found.keep(structPath, name, writer, value);
      return null;
    }
  }

  /** A writer record: for each of its fields, where it goes. */
  private static final class RecordNode {
    private final String path;
    private final int width;
    private final Schema.Field[] writerFields;
    private final int[] targets; // declared index, or -1: undeclared
    private final AvroConverter[] leaves;
    private final StructNode[] structs;

    RecordNode(
        int id, String path, Schema writer, StructType declared, Map<String, EpochUnit> units) {
      this.path = path;
      this.width = declared.size();
      List<Schema.Field> fields = writer.getFields();
      this.writerFields = fields.toArray(new Schema.Field[0]);
      this.targets = new int[fields.size()];
      this.leaves = new AvroConverter[fields.size()];
      this.structs = new StructNode[fields.size()];
      for (int j = 0; j < writerFields.length; j++) {
        Schema.Field f = writerFields[j];
        int i = declared.indexOf(f.name());
        targets[j] = i;
        if (i < 0) {
          continue;
        }
        String fieldPath = path.isEmpty() ? f.name() : path + "." + f.name();
        DataType type = declared.fields().get(i).type();
        if (type instanceof StructType struct) {
          structs[j] = new StructNode(id, fieldPath, f.schema(), struct, units);
        } else {
          leaves[j] = AvroConverter.of(id, fieldPath, f.schema(), type, units);
        }
      }
    }

    Object[] convert(IndexedRecord record, Found found) {
      Object[] row = new Object[width];
      for (int j = 0; j < writerFields.length; j++) {
        Object v = record.get(j);
        if (v == null) {
          continue; // a null loses nothing, and says nothing about a new column's type
        }
        int target = targets[j];
        String name = writerFields[j].name();
        if (target < 0) {
          found.undeclared(path, name, writerFields[j].schema(), v);
        } else if (structs[j] != null) {
          row[target] = structs[j].convert(v, found, path, name);
        } else {
          try {
            row[target] = leaves[j].convertNonNull(v);
          } catch (AvroMisfit e) {
            if (!found.rescue) {
              throw e;
            }
            found.keep(path, name, writerFields[j].schema(), v);
          }
        }
      }
      return row;
    }
  }
}
