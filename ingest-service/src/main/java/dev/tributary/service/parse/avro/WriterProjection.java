package dev.tributary.service.parse.avro;

import dev.tributary.service.parse.EpochUnit;
import dev.tributary.table.types.DataType;
import dev.tributary.table.types.StructField;
import dev.tributary.table.types.StructType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;

/**
 * One writer schema compiled against the declared columns, once per schema id: the reader schema is
 * the writer schema cut down to the declared fields (nested records included), so Avro's resolving
 * reader skips every other field without materializing it; the converters then map the read values
 * to the table's representation. A declared field the writer lacks is left null.
 *
 * <p>When the writer schema is not a record (a key written as a plain {@code "string"}), a single
 * declared column takes the whole value.
 */
final class WriterProjection {
  private final int id;
  private final GenericDatumReader<Object> reader;
  private final AvroConverter top;
  private final boolean wholeValue;
  private final List<String> undeclared;

  WriterProjection(int id, Schema writer, StructType declared, Map<String, EpochUnit> units) {
    this.id = id;
    List<String> beyond = new ArrayList<>();
    Schema readerSchema;
    if (isRecordLike(writer)) {
      readerSchema = project(writer, declared, "", beyond);
      this.top = AvroConverter.of(id, "", readerSchema, declared, units);
      this.wholeValue = false;
    } else if (declared.size() == 1 && !(declared.fields().get(0).type() instanceof StructType)) {
      StructField only = declared.fields().get(0);
      readerSchema = writer;
      this.top = AvroConverter.of(id, only.name(), writer, only.type(), units);
      this.wholeValue = true;
    } else {
      throw new IllegalArgumentException(
          "writer schema id "
              + id
              + " is "
              + AvroErrors.describe(writer)
              + ", not a record; declare exactly one column to take the whole value, or fields of a record");
    }
    this.reader = new GenericDatumReader<>(writer, readerSchema);
    this.undeclared = List.copyOf(beyond);
  }

  /**
   * Decodes the Avro body of {@code length} bytes from {@code offset} into a row of the declared
   * struct.
   */
  Object[] read(byte[] bytes, int offset, int length, int width) throws IOException {
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, offset, length, null);
    Object datum = reader.read(null, decoder);
    if (!decoder.isEnd()) {
      throw new AvroMisfit(AvroErrors.trailing(id));
    }
    if (wholeValue) {
      return new Object[] {top.convert(datum)};
    }
    Object row = top.convert(datum);
    return row == null ? new Object[width] : (Object[]) row;
  }

  /** Whether the writer schema is not a record and its value fills the one declared column. */
  boolean wholeValue() {
    return wholeValue;
  }

  /**
   * The writer's field paths that no declared column reads (dotted, in writer order): what a {@code
   * rescue} column would keep.
   */
  List<String> undeclaredFields() {
    return undeclared;
  }

  private static boolean isRecordLike(Schema s) {
    return s.getType() == Schema.Type.RECORD
        || s.getType() == Schema.Type.UNION
            && s.getTypes().stream().anyMatch(b -> b.getType() == Schema.Type.RECORD);
  }

  /**
   * The writer type cut down to what {@code declared} reads (records, and records inside unions).
   */
  private static Schema project(
      Schema writer, DataType declared, String path, List<String> beyond) {
    if (!(declared instanceof StructType struct)) {
      return writer;
    }
    return switch (writer.getType()) {
      case RECORD -> projectRecord(writer, struct, path, beyond);
      case UNION -> {
        List<Schema> branches = new ArrayList<>();
        for (Schema b : writer.getTypes()) {
          branches.add(
              b.getType() == Schema.Type.RECORD ? projectRecord(b, struct, path, beyond) : b);
        }
        yield Schema.createUnion(branches);
      }
      default -> writer;
    };
  }

  private static Schema projectRecord(
      Schema writer, StructType declared, String path, List<String> beyond) {
    List<Schema.Field> fields = new ArrayList<>();
    for (Schema.Field wf : writer.getFields()) {
      String fieldPath = path.isEmpty() ? wf.name() : path + "." + wf.name();
      int i = declared.indexOf(wf.name());
      if (i < 0) {
        beyond.add(fieldPath);
        continue;
      }
      DataType type = declared.fields().get(i).type();
      fields.add(
          new Schema.Field(
              wf.name(), project(wf.schema(), type, fieldPath, beyond), null, (Object) null));
    }
    // Same full name as the writer's: Avro resolves records by name.
    return Schema.createRecord(
        writer.getName(), null, writer.getNamespace(), writer.isError(), fields);
  }
}
