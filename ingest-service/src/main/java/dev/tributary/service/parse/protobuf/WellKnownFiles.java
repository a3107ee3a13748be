package dev.tributary.service.parse.protobuf;

import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.SourceContextProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.TypeProto;
import com.google.protobuf.WrappersProto;
import java.util.Map;

/**
 * The files a registry schema may import without registering them (as Confluent's serializers
 * allow): protobuf's well-known types, from protobuf-java itself, and {@code
 * google/type/date.proto} (the googleapis calendar date, which protobuf-java does not ship; only
 * its message {@code google.type.Date}, whose three fields are all decoding needs).
 */
final class WellKnownFiles {
  static final String TIMESTAMP = "google.protobuf.Timestamp";
  static final String DATE = "google.type.Date";

  private static final Map<String, FileDescriptor> FILES =
      Map.ofEntries(
          Map.entry("google/protobuf/any.proto", AnyProto.getDescriptor()),
          Map.entry("google/protobuf/api.proto", ApiProto.getDescriptor()),
          Map.entry("google/protobuf/descriptor.proto", DescriptorProtos.getDescriptor()),
          Map.entry("google/protobuf/duration.proto", DurationProto.getDescriptor()),
          Map.entry("google/protobuf/empty.proto", EmptyProto.getDescriptor()),
          Map.entry("google/protobuf/field_mask.proto", FieldMaskProto.getDescriptor()),
          Map.entry("google/protobuf/source_context.proto", SourceContextProto.getDescriptor()),
          Map.entry("google/protobuf/struct.proto", StructProto.getDescriptor()),
          Map.entry("google/protobuf/timestamp.proto", TimestampProto.getDescriptor()),
          Map.entry("google/protobuf/type.proto", TypeProto.getDescriptor()),
          Map.entry("google/protobuf/wrappers.proto", WrappersProto.getDescriptor()),
          Map.entry("google/type/date.proto", googleTypeDate()));

  private WellKnownFiles() {}

  /** The built-in file imported as {@code name}, or null. */
  static FileDescriptor file(String name) {
    return FILES.get(name);
  }

  private static FileDescriptor googleTypeDate() {
    FileDescriptorProto proto =
        FileDescriptorProto.newBuilder()
            .setName("google/type/date.proto")
            .setPackage("google.type")
            .setSyntax("proto3")
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("Date")
                    .addField(int32("year", 1))
                    .addField(int32("month", 2))
                    .addField(int32("day", 3)))
            .build();
    try {
      return FileDescriptor.buildFrom(proto, new FileDescriptor[0]);
    } catch (DescriptorValidationException e) {
      throw new IllegalStateException("google/type/date.proto does not build", e);
    }
  }

  private static FieldDescriptorProto.Builder int32(String name, int number) {
    return FieldDescriptorProto.newBuilder()
        .setName(name)
        .setNumber(number)
        .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)
        .setType(FieldDescriptorProto.Type.TYPE_INT32);
  }
}
