package dev.tributary.service.parse.protobuf;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import dev.tributary.service.registry.RegisteredSchema;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A registry Protobuf schema compiled into protobuf-java descriptors: the schema's own file and,
 * transitively, every file it imports.
 *
 * <p>A Confluent-compatible registry stores a Protobuf schema as {@code .proto} source text plus
 * references: each names an import path ({@code common/address.proto}) and a registered subject
 * version whose text is that file. {@link #compile} takes the text and those files by import path
 * (the caller flattens nested references into the one map). An import that is not among them is
 * looked up in the well-known types ({@code google/protobuf/*.proto}, {@code
 * google/type/date.proto}), which producers import without registering. The text is parsed by
 * Square's wire-schema (the parser Confluent's own Protobuf provider uses), converted to {@code
 * FileDescriptorProto}s and built, with full validation and name resolution, by protobuf-java.
 *
 * <p>Instances are immutable and thread-safe; compile once per schema id.
 */
public final class ProtobufSchema {
  /** The name of the registry schema's own file, for messages and descriptors. */
  public static final String ROOT_FILE = "registry-schema.proto";

  private final FileDescriptor file;

  private ProtobufSchema(FileDescriptor file) {
    this.file = file;
  }

  /**
   * Compiles a schema as the registry holds it: its text with the text of every file it references.
   *
   * @throws ProtobufSchemaException as {@link #compile(String, Map)}
   */
  public static ProtobufSchema compile(RegisteredSchema registered) {
    Map<String, String> references = new HashMap<>();
    for (RegisteredSchema.Reference ref : registered.references()) {
      references.put(ref.name(), ref.text());
    }
    return compile(registered.text(), references);
  }

  /**
   * Compiles {@code schemaText} with the files it imports.
   *
   * @param schemaText the schema's {@code .proto} source, as the registry returns it
   * @param references the text of every referenced file (transitively), by import path
   * @throws ProtobufSchemaException naming the file, if a text does not parse, an import is neither
   *     a reference nor a well-known type, imports form a cycle, or the types are invalid
   *     (unresolvable type names, duplicate field numbers, ...)
   */
  public static ProtobufSchema compile(String schemaText, Map<String, String> references) {
    Objects.requireNonNull(schemaText, "schemaText");
    Map<String, String> sources = new HashMap<>(references);
    if (sources.containsKey(ROOT_FILE)) {
      throw new ProtobufSchemaException(ProtobufErrors.reservedReferenceName(ROOT_FILE));
    }
    sources.put(ROOT_FILE, schemaText);
    return new ProtobufSchema(new Builder(sources).build(ROOT_FILE, new ArrayDeque<>()));
  }

  /** The schema's own file (its dependencies are reachable from it). */
  public FileDescriptor file() {
    return file;
  }

  /**
   * The message the Confluent message indexes point at: the first index into the file's top-level
   * messages, each further one into the previous message's nested messages (map entry messages,
   * which the source does not declare, are not counted). Empty if an index is out of range.
   */
  public Optional<Descriptor> messageAt(MessageIndexes indexes) {
    List<Descriptor> candidates = file.getMessageTypes();
    Descriptor found = null;
    for (int index : indexes.indexes()) {
      if (index < 0 || index >= candidates.size()) {
        return Optional.empty();
      }
      found = candidates.get(index);
      candidates = declaredNested(found);
    }
    return Optional.ofNullable(found);
  }

  /** The message indexes that select {@code message}, a message of this schema's own file. */
  public MessageIndexes indexesOf(Descriptor message) {
    if (message.getFile() != file) {
      throw new IllegalArgumentException(
          message.getFullName() + " is not a message of this schema's file");
    }
    List<Integer> path = new ArrayList<>();
    for (Descriptor d = message; d != null; d = d.getContainingType()) {
      List<Descriptor> siblings =
          d.getContainingType() == null
              ? file.getMessageTypes()
              : declaredNested(d.getContainingType());
      path.add(0, siblings.indexOf(d));
    }
    return new MessageIndexes(path);
  }

  /** The message of this schema's own file with that full name ({@code com.example.Order}). */
  public Optional<Descriptor> message(String fullName) {
    String pkg = file.getPackage();
    String relative =
        pkg.isEmpty()
            ? fullName
            : fullName.startsWith(pkg + ".") ? fullName.substring(pkg.length() + 1) : null;
    if (relative == null) {
      return Optional.empty();
    }
    String[] parts = relative.split("\\.");
    Descriptor d = file.findMessageTypeByName(parts[0]);
    for (int i = 1; d != null && i < parts.length; i++) {
      d = d.findNestedTypeByName(parts[i]);
    }
    return Optional.ofNullable(d);
  }

  /** The full names of the top-level messages, for messages. */
  List<String> topLevelNames() {
    return file.getMessageTypes().stream().map(Descriptor::getFullName).toList();
  }

  private static List<Descriptor> declaredNested(Descriptor d) {
    List<Descriptor> nested = d.getNestedTypes();
    for (Descriptor n : nested) {
      if (n.getOptions().getMapEntry()) {
        return nested.stream().filter(x -> !x.getOptions().getMapEntry()).toList();
      }
    }
    return nested;
  }

  /** Builds files depth-first, each once, in the import order buildFrom requires. */
  private static final class Builder {
    private final Map<String, String> sources;
    private final Map<String, FileDescriptor> built = new HashMap<>();

    Builder(Map<String, String> sources) {
      this.sources = sources;
    }

    FileDescriptor build(String name, Deque<String> importing) {
      FileDescriptor done = built.get(name);
      if (done != null) {
        return done;
      }
      if (importing.contains(name)) {
        throw new ProtobufSchemaException(ProtobufErrors.importCycle(name, importing));
      }
      String text = sources.get(name);
      if (text == null) {
        FileDescriptor wellKnown = WellKnownFiles.file(name);
        if (wellKnown == null) {
          throw new ProtobufSchemaException(ProtobufErrors.missingImport(importing.peek(), name));
        }
        return wellKnown;
      }
      FileDescriptorProto proto = ProtoFileConverter.convert(name, parse(name, text));
      importing.push(name);
      FileDescriptor[] dependencies = new FileDescriptor[proto.getDependencyCount()];
      for (int i = 0; i < dependencies.length; i++) {
        dependencies[i] = build(proto.getDependency(i), importing);
      }
      importing.pop();
      try {
        FileDescriptor file = FileDescriptor.buildFrom(proto, dependencies);
        built.put(name, file);
        return file;
      } catch (DescriptorValidationException e) {
        throw new ProtobufSchemaException(ProtobufErrors.invalidTypes(name, e.getMessage()), e);
      }
    }

    private static ProtoFileElement parse(String name, String text) {
      try {
        return ProtoParser.Companion.parse(Location.Companion.get(name), text);
      } catch (RuntimeException e) {
        // wire-schema reports syntax errors as IllegalStateException/IllegalArgumentException
        // with the line and column in the message.
        throw new ProtobufSchemaException(ProtobufErrors.unparsable(name, e.getMessage()), e);
      }
    }
  }
}
