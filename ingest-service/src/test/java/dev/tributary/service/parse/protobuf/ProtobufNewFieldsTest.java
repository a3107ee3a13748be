package dev.tributary.service.parse.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Int64Value;
import com.google.protobuf.Message;
import com.google.protobuf.StringValue;
import com.google.protobuf.Timestamp;
import dev.tributary.service.parse.DecodedExtras;
import dev.tributary.service.parse.DecodedExtras.NewField;
import dev.tributary.service.parse.ParseResult;
import dev.tributary.table.types.PrimitiveType;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code mode: add-columns} for Protobuf ({@link ProtobufRecordDecoder#decodeWithExtras(byte[],
 * int, int, boolean, boolean)}): the exact type and value of the new field each Protobuf type
 * gives, the presence rules, a declared nested struct left as it was, and the split between new
 * columns and {@code _rescued_data}.
 */
class ProtobufNewFieldsTest {
  private static final String PROTO =
      """
      syntax = "proto3";
      package t;
      import "google/protobuf/timestamp.proto";
      import "google/protobuf/wrappers.proto";
      enum Color { RED = 0; GREEN = 1; }
      message Inner { string city = 1; string zip = 2; }
      message Event {
        string id = 1;
        Inner inner = 2;
        int32 i32 = 3;
        sint32 s32 = 4;
        uint32 u32 = 5;
        fixed32 f32 = 6;
        int64 i64 = 7;
        sfixed64 sf64 = 8;
        uint64 u64 = 9;
        fixed64 f64 = 10;
        float fl = 11;
        double db = 12;
        bool flag = 13;
        string text = 14;
        Color color = 15;
        bytes data = 16;
        google.protobuf.Timestamp at = 17;
        google.protobuf.Int64Value wrapped = 18;
        google.protobuf.StringValue wrapped_text = 19;
        Inner other = 20;
        repeated string tags = 21;
        map<string, int32> counts = 22;
        optional int64 maybe = 23;
      }
      """;

  private final ProtobufSchema schema = ProtobufSchema.compile(PROTO, Map.of());
  private final Descriptor event = schema.message("t.Event").orElseThrow();
  private final Descriptor inner = schema.message("t.Inner").orElseThrow();

  private ProtobufRecordDecoder decoder() {
    LinkedHashMap<String, String> columns = new LinkedHashMap<>();
    columns.put("id", "string");
    columns.put("inner.city", "string");
    return ProtobufRecordDecoder.forColumns(schema, "t.Event", columns);
  }

  private FieldDescriptor f(String name) {
    return event.findFieldByName(name);
  }

  private byte[] payload(Message m) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(schema.indexesOf(m.getDescriptorForType()).toBytes());
    out.writeBytes(m.toByteArray());
    return out.toByteArray();
  }

  private ParseResult.Success decode(Message m, boolean rescue, boolean reportNewFields) {
    byte[] p = payload(m);
    ParseResult r = decoder().decodeWithExtras(p, 0, p.length, rescue, reportNewFields);
    assertThat(r).isInstanceOf(ParseResult.Success.class);
    return (ParseResult.Success) r;
  }

  private DynamicMessage.Builder base() {
    return DynamicMessage.newBuilder(event)
        .setField(f("id"), "e-1")
        .setField(
            f("inner"),
            DynamicMessage.newBuilder(inner)
                .setField(inner.findFieldByName("city"), "Lyon")
                .setField(inner.findFieldByName("zip"), "69001")
                .build());
  }

  private static NewField field(String name, PrimitiveType type, Object value) {
    return new NewField(name, type, value, false);
  }

  @Test
  void eachProtobufTypeGivesTheAvroEvolutionColumnTypeAndValue() {
    DynamicMessage m =
        base()
            .setField(f("i32"), -5)
            .setField(f("s32"), -6)
            .setField(f("u32"), -1)
            .setField(f("f32"), 7)
            .setField(f("i64"), -8L)
            .setField(f("sf64"), 9L)
            .setField(f("u64"), Long.MAX_VALUE)
            .setField(f("f64"), 10L)
            .setField(f("fl"), 1.5f)
            .setField(f("db"), 2.25)
            .setField(f("flag"), true)
            .setField(f("text"), "hi")
            .setField(f("color"), f("color").getEnumType().findValueByName("GREEN"))
            .setField(f("data"), ByteString.copyFrom(new byte[] {1, 2, (byte) 0xff}))
            .setField(
                f("at"),
                Timestamp.newBuilder().setSeconds(1_767_225_600L).setNanos(500_000_000).build())
            .setField(f("wrapped"), Int64Value.of(42))
            .setField(f("wrapped_text"), StringValue.of("w"))
            .setField(
                f("other"),
                DynamicMessage.newBuilder(inner)
                    .setField(inner.findFieldByName("zip"), "75001")
                    .build())
            .addRepeatedField(f("tags"), "a")
            .addRepeatedField(f("tags"), "b")
            .setField(f("maybe"), 0L)
            .build();

    ParseResult.Success r = decode(m, false, true);

    assertThat(r.row()).containsExactly("e-1", new Object[] {"Lyon"});
    assertThat(r.extras().rescued()).as("the nested zip is not rescued without rescue").isNull();
    assertThat(r.extras().newFields())
        .containsExactly(
            field("i32", PrimitiveType.LONG, -5L),
            field("s32", PrimitiveType.LONG, -6L),
            field("u32", PrimitiveType.LONG, 4_294_967_295L),
            field("f32", PrimitiveType.LONG, 7L),
            field("i64", PrimitiveType.LONG, -8L),
            field("sf64", PrimitiveType.LONG, 9L),
            field("u64", PrimitiveType.LONG, Long.MAX_VALUE),
            field("f64", PrimitiveType.LONG, 10L),
            field("fl", PrimitiveType.DOUBLE, 1.5),
            field("db", PrimitiveType.DOUBLE, 2.25),
            field("flag", PrimitiveType.BOOLEAN, true),
            field("text", PrimitiveType.STRING, "hi"),
            field("color", PrimitiveType.STRING, "GREEN"),
            field("data", PrimitiveType.STRING, "AQL/"),
            field("at", PrimitiveType.STRING, "2026-01-01T00:00:00.500Z"),
            field("wrapped", PrimitiveType.LONG, 42L),
            field("wrapped_text", PrimitiveType.STRING, "w"),
            new NewField("other", PrimitiveType.STRING, "{\"zip\":\"75001\"}", true),
            new NewField("tags", PrimitiveType.STRING, "[\"a\",\"b\"]", true),
            field("maybe", PrimitiveType.LONG, 0L));
  }

  @Test
  void unsetFieldsWithPresenceAndEmptyListsAddNothingAndProto3ScalarsReadTheirDefault() {
    DynamicMessage m = base().build();

    List<NewField> found = decode(m, false, true).extras().newFields();

    // Without presence (proto3 scalars, enums): the default, as the declared columns read them.
    // With presence
    // (messages, wrappers, Timestamp, optional) or repeated/map and unset or empty: nothing.
    assertThat(found)
        .extracting(NewField::name)
        .containsExactly(
            "i32", "s32", "u32", "f32", "i64", "sf64", "u64", "f64", "fl", "db", "flag", "text",
            "color", "data");
    assertThat(found)
        .contains(
            field("text", PrimitiveType.STRING, ""),
            field("color", PrimitiveType.STRING, "RED"),
            field("data", PrimitiveType.STRING, ""),
            field("flag", PrimitiveType.BOOLEAN, false));
  }

  @Test
  void withRescueTooTheTopLevelFieldsAreColumnsAndTheRestIsRescued() {
    DynamicMessage m =
        base()
            .setField(f("text"), "hi")
            .setField(f("db"), Double.NaN)
            .setField(f("u64"), -1L)
            .setField(f("counts"), List.of())
            .build();
    Message withMap =
        m.toBuilder()
            .addRepeatedField(
                f("counts"),
                DynamicMessage.newBuilder(f("counts").getMessageType())
                    .setField(f("counts").getMessageType().findFieldByName("key"), "k")
                    .setField(f("counts").getMessageType().findFieldByName("value"), 3)
                    .build())
            .build();

    ParseResult.Success both = decode(withMap, true, true);

    assertThat(both.row()).containsExactly("e-1", new Object[] {"Lyon"});
    DecodedExtras extras = both.extras();
    assertThat(extras.newFields())
        .contains(
            field("text", PrimitiveType.STRING, "hi"),
            new NewField("counts", PrimitiveType.STRING, "{\"k\":3}", true));
    assertThat(extras.newFields()).extracting(NewField::name).doesNotContain("db", "u64");
    // What no new column holds stays rescued, with the undeclared field of the declared struct.
    assertThat(extras.rescued().toString())
        .isEqualTo(
            "{\"inner\":{\"zip\":\"69001\"},\"u64\":\"18446744073709551615\",\"db\":\"NaN\"}");

    ParseResult.Success rescueOnly = decode(withMap, true, false);
    assertThat(rescueOnly.extras().newFields()).isEmpty();
    assertThat(rescueOnly.extras().rescued().has("text")).isTrue();
  }

  @Test
  void withoutRescueANewUint64AboveTheLongRangeFailsTheRecordNamingTheField() {
    byte[] p = payload(base().setField(f("u64"), -1L).build());

    ParseResult r = decoder().decodeWithExtras(p, 0, p.length, false, true);

    assertThat(r).isInstanceOf(ParseResult.Failure.class);
    assertThat(((ParseResult.Failure) r).error())
        .isEqualTo(
            "field 'u64' of t.Event is new"
                + " (schema-evolution.mode: add-columns) and holds the uint64 18446744073709551615, above the long range of a"
                + " new column; declare it in format.protobuf.schema as decimal(20,0) or double, or turn on"
                + " schema-evolution.rescue to keep it in _rescued_data");
  }

  @Test
  void aMessageWithOnlyDeclaredFieldsHasNoExtras() {
    ProtobufSchema small =
        ProtobufSchema.compile(
            "syntax = \"proto3\"; package t; message Event { string id = 1; }", Map.of());
    Descriptor d = small.message("t.Event").orElseThrow();
    DynamicMessage m =
        DynamicMessage.newBuilder(d).setField(d.findFieldByName("id"), "e-1").build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(small.indexesOf(d).toBytes());
    out.writeBytes(m.toByteArray());
    byte[] p = out.toByteArray();
    LinkedHashMap<String, String> idOnly = new LinkedHashMap<>();
    idOnly.put("id", "string");

    ParseResult r =
        ProtobufRecordDecoder.forColumns(small, "t.Event", idOnly)
            .decodeWithExtras(p, 0, p.length, true, true);

    assertThat(r).isInstanceOf(ParseResult.Success.class);
    assertThat(((ParseResult.Success) r).extras()).isNull();
    assertThat(((ParseResult.Success) r).row()).containsExactly("e-1");
  }
}
