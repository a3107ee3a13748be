package dev.tributary.table.log;

import dev.tributary.table.data.ParquetCodecs;
import dev.tributary.table.dv.DeletionVectorDescriptor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.DelegatingPositionOutputStream;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * A checkpoint in Parquet: one row per action, each row with exactly one of the struct columns
 * {@code txn, add, remove, metaData, protocol, domainMetadata} set (the protocol's checkpoint
 * schema; readers select the columns they need by name). We write classic single-file V1
 * checkpoints; we read those, V2 checkpoints in Parquet (whose {@code sidecar} rows name files of
 * further add and remove rows, and whose {@code checkpointMetadata} row we do not need) and their
 * sidecars. Paths are URL-encoded as in JSON commits; maps are Parquet MAP groups ({@code
 * key_value}), lists are 3-level LIST groups.
 *
 * <p>Checkpoints are small next to data files, so they are built in memory and stored with one
 * atomic {@code put}: a reader never sees half a checkpoint.
 */
final class CheckpointFile {
  private static final String MAP =
      "group %s (MAP) { repeated group key_value {"
          + " required binary key (STRING); optional binary value (STRING); } }";
  private static final String LIST =
      "group %s (LIST) { repeated group list {" + " optional binary element (STRING); } }";

  /** The fields add and remove share: the deletion vector and row tracking. */
  private static final String FILE_EXTRAS =
      " optional group deletionVector { optional binary storageType (STRING);"
          + " optional binary pathOrInlineDv (STRING); optional int32 offset;"
          + " optional int32 sizeInBytes; optional int64 cardinality; }"
          + " optional int64 baseRowId; optional int64 defaultRowCommitVersion;";

  static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message checkpoint {"
              + " optional group txn { optional binary appId (STRING); optional int64 version;"
              + "   optional int64 lastUpdated; }"
              + " optional group add { optional binary path (STRING); optional "
              + map("partitionValues")
              + " optional int64 size; optional int64 modificationTime; optional boolean dataChange;"
              + "   optional "
              + map("tags")
              + " optional binary stats (STRING);"
              + FILE_EXTRAS
              + " }"
              + " optional group remove { optional binary path (STRING); optional int64 deletionTimestamp;"
              + "   optional boolean dataChange; optional boolean extendedFileMetadata;"
              + "   optional "
              + map("partitionValues")
              + " optional int64 size;"
              + FILE_EXTRAS
              + " }"
              + " optional group metaData { optional binary id (STRING); optional binary name (STRING);"
              + "   optional binary description (STRING);"
              + "   optional group format { optional binary provider (STRING); optional "
              + map("options")
              + " } optional binary schemaString (STRING); optional "
              + list("partitionColumns")
              + " optional "
              + map("configuration")
              + " optional int64 createdTime; }"
              + " optional group protocol { optional int32 minReaderVersion; optional int32 minWriterVersion;"
              + "   optional "
              + list("readerFeatures")
              + " optional "
              + list("writerFeatures")
              + " }"
              + " optional group domainMetadata { optional binary domain (STRING);"
              + "   optional binary configuration (STRING); optional boolean removed; }"
              + "}");

  private CheckpointFile() {}

  private static String map(String name) {
    return String.format(MAP, name);
  }

  private static String list(String name) {
    return String.format(LIST, name);
  }

  /**
   * Serializes a state: protocol, metadata, every txn, every live file (as {@code add} with
   * dataChange=false) and the given tombstones.
   *
   * @return the Parquet bytes and the number of actions (rows) they hold
   */
  static Encoded encode(TableState state, List<RemoveFile> tombstones) throws IOException {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
    SimpleGroupFactory rows = new SimpleGroupFactory(SCHEMA);
    long count = 0;
    try (ParquetWriter<Group> writer =
        ExampleParquetWriter.builder(new BufferOutputFile(buffer))
            .withConf(new PlainParquetConfiguration())
            .withCodecFactory(ParquetCodecs.INSTANCE)
            .withType(SCHEMA)
            .withCompressionCodec(CompressionCodecName.SNAPPY)
            .build()) {
      writer.write(protocol(rows.newGroup(), state.protocol()));
      writer.write(metadata(rows.newGroup(), state.metadata()));
      count += 2;
      for (SetTransaction t : state.transactions().values()) {
        Group row = rows.newGroup();
        Group g = row.addGroup("txn");
        g.append("appId", t.appId()).append("version", t.version());
        if (t.lastUpdated() != null) {
          g.append("lastUpdated", t.lastUpdated());
        }
        writer.write(row);
        count++;
      }
      for (DomainMetadata d : state.domains().values()) {
        Group row = rows.newGroup();
        row.addGroup("domainMetadata")
            .append("domain", d.domain())
            .append("configuration", d.configuration())
            .append("removed", false);
        writer.write(row);
        count++;
      }
      for (AddFile a : state.files().values()) {
        Group row = rows.newGroup();
        Group g = row.addGroup("add");
        g.append("path", PathCodec.encode(a.path()));
        putMap(g, "partitionValues", a.partitionValues());
        g.append("size", a.size())
            .append("modificationTime", a.modificationTime())
            .append("dataChange", false);
        if (!a.tags().isEmpty()) {
          putMap(g, "tags", a.tags());
        }
        if (a.stats() != null) {
          g.append("stats", a.stats());
        }
        putFileExtras(g, a.deletionVector(), a.baseRowId(), a.defaultRowCommitVersion());
        writer.write(row);
        count++;
      }
      for (RemoveFile r : tombstones) {
        Group row = rows.newGroup();
        Group g = row.addGroup("remove");
        g.append("path", PathCodec.encode(r.path()));
        if (r.deletionTimestamp() != null) {
          g.append("deletionTimestamp", r.deletionTimestamp());
        }
        g.append("dataChange", false).append("extendedFileMetadata", r.extendedFileMetadata());
        putMap(g, "partitionValues", r.partitionValues());
        if (r.size() != null) {
          g.append("size", r.size());
        }
        putFileExtras(g, r.deletionVector(), r.baseRowId(), r.defaultRowCommitVersion());
        writer.write(row);
        count++;
      }
    }
    return new Encoded(buffer.toByteArray(), count);
  }

  /** Parquet bytes of a checkpoint and its number of actions. */
  record Encoded(byte[] bytes, long actions) {}

  private static Group protocol(Group row, Protocol p) {
    Group g = row.addGroup("protocol");
    g.append("minReaderVersion", p.minReaderVersion())
        .append("minWriterVersion", p.minWriterVersion());
    if (p.minReaderVersion() >= 3) {
      putList(g, "readerFeatures", new ArrayList<>(Protocol.sorted(p.readerFeatures())));
    }
    if (p.minWriterVersion() >= 7) {
      putList(g, "writerFeatures", new ArrayList<>(Protocol.sorted(p.writerFeatures())));
    }
    return row;
  }

  private static Group metadata(Group row, Metadata m) {
    Group g = row.addGroup("metaData");
    g.append("id", m.id());
    if (m.name() != null) {
      g.append("name", m.name());
    }
    if (m.description() != null) {
      g.append("description", m.description());
    }
    Group format = g.addGroup("format");
    format.append("provider", m.format().provider());
    putMap(format, "options", m.format().options());
    g.append("schemaString", m.schemaString());
    putList(g, "partitionColumns", m.partitionColumns());
    putMap(g, "configuration", m.configuration());
    if (m.createdTime() != null) {
      g.append("createdTime", m.createdTime());
    }
    return row;
  }

  private static void putFileExtras(
      Group g, DeletionVectorDescriptor dv, Long baseRowId, Long defaultRowCommitVersion) {
    if (dv != null) {
      Group d = g.addGroup("deletionVector");
      d.append("storageType", dv.storageType().code())
          .append("pathOrInlineDv", dv.pathOrInlineDv());
      if (dv.offset() != null) {
        d.append("offset", dv.offset());
      }
      d.append("sizeInBytes", dv.sizeInBytes()).append("cardinality", dv.cardinality());
    }
    if (baseRowId != null) {
      g.append("baseRowId", baseRowId);
    }
    if (defaultRowCommitVersion != null) {
      g.append("defaultRowCommitVersion", defaultRowCommitVersion);
    }
  }

  /** A checkpoint row's deletion vector, or null. */
  private static DeletionVectorDescriptor deletionVector(Group file) {
    if (!has(file, "deletionVector")) {
      return null;
    }
    Group d = file.getGroup("deletionVector", 0);
    return new DeletionVectorDescriptor(
        DeletionVectorDescriptor.StorageType.ofCode(d.getString("storageType", 0)),
        d.getString("pathOrInlineDv", 0),
        has(d, "offset") ? d.getInteger("offset", 0) : null,
        d.getInteger("sizeInBytes", 0),
        d.getLong("cardinality", 0));
  }

  private static Long optLong(Group g, String field) {
    return has(g, field) ? g.getLong(field, 0) : null;
  }

  private static void putMap(Group parent, String field, Map<String, String> map) {
    Group g = parent.addGroup(field);
    for (Map.Entry<String, String> e : map.entrySet()) {
      Group kv = g.addGroup("key_value");
      kv.append("key", e.getKey());
      if (e.getValue() != null) {
        kv.append("value", e.getValue());
      }
    }
  }

  private static void putList(Group parent, String field, List<String> values) {
    Group g = parent.addGroup(field);
    for (String v : values) {
      g.addGroup("list").append("element", v);
    }
  }

  /**
   * The actions of a checkpoint (or of a V2 checkpoint's sidecar), in file order, and the sidecar
   * files a V2 checkpoint names (paths relative to {@code _delta_log/_sidecars/}).
   */
  record Decoded(List<Action> actions, List<String> sidecars) {}

  /** Reads every action of a Parquet checkpoint or sidecar, in file order. */
  static Decoded decode(byte[] bytes, String location, String file) throws IOException {
    List<Action> actions = new ArrayList<>();
    List<String> sidecars = new ArrayList<>();
    try (ParquetReader<Group> reader =
        new GroupReaderBuilder(new BufferInputFile(bytes))
            .withCodecFactory(ParquetCodecs.INSTANCE)
            .build()) {
      for (Group row = reader.read(); row != null; row = reader.read()) {
        if (has(row, "sidecar")) {
          sidecars.add(row.getGroup("sidecar", 0).getString("path", 0));
          continue;
        }
        Action a = decodeRow(row, location, file);
        if (a != null) {
          actions.add(a);
        }
      }
    }
    return new Decoded(actions, sidecars);
  }

  private static Action decodeRow(Group row, String location, String file) {
    if (has(row, "domainMetadata")) {
      Group g = row.getGroup("domainMetadata", 0);
      return new DomainMetadata(
          g.getString("domain", 0),
          g.getString("configuration", 0),
          has(g, "removed") && g.getBoolean("removed", 0));
    }
    if (has(row, "add")) {
      Group g = row.getGroup("add", 0);
      return new AddFile(
          PathCodec.decode(g.getString("path", 0)),
          readMap(g, "partitionValues"),
          g.getLong("size", 0),
          g.getLong("modificationTime", 0),
          false,
          has(g, "stats") ? g.getString("stats", 0) : null,
          readMap(g, "tags"),
          deletionVector(g),
          optLong(g, "baseRowId"),
          optLong(g, "defaultRowCommitVersion"));
    }
    if (has(row, "remove")) {
      Group g = row.getGroup("remove", 0);
      return new RemoveFile(
          PathCodec.decode(g.getString("path", 0)),
          has(g, "deletionTimestamp") ? g.getLong("deletionTimestamp", 0) : null,
          false,
          has(g, "extendedFileMetadata") && g.getBoolean("extendedFileMetadata", 0),
          readMap(g, "partitionValues"),
          has(g, "size") ? g.getLong("size", 0) : null,
          deletionVector(g),
          optLong(g, "baseRowId"),
          optLong(g, "defaultRowCommitVersion"));
    }
    if (has(row, "txn")) {
      Group g = row.getGroup("txn", 0);
      return new SetTransaction(
          g.getString("appId", 0),
          g.getLong("version", 0),
          has(g, "lastUpdated") ? g.getLong("lastUpdated", 0) : null);
    }
    if (has(row, "metaData")) {
      Group g = row.getGroup("metaData", 0);
      Group format = g.getGroup("format", 0);
      return new Metadata(
          g.getString("id", 0),
          opt(g, "name"),
          opt(g, "description"),
          new Metadata.Format(format.getString("provider", 0), readMap(format, "options")),
          g.getString("schemaString", 0),
          readList(g, "partitionColumns"),
          readMap(g, "configuration"),
          has(g, "createdTime") ? g.getLong("createdTime", 0) : null);
    }
    if (has(row, "protocol")) {
      Group g = row.getGroup("protocol", 0);
      Set<String> readerFeatures = new HashSet<>(readList(g, "readerFeatures"));
      Set<String> writerFeatures = new HashSet<>(readList(g, "writerFeatures"));
      return new Protocol(
          g.getInteger("minReaderVersion", 0),
          g.getInteger("minWriterVersion", 0),
          readerFeatures,
          writerFeatures);
    }
    return null;
  }

  private static boolean has(Group g, String field) {
    return g.getType().containsField(field) && g.getFieldRepetitionCount(field) > 0;
  }

  private static String opt(Group g, String field) {
    return has(g, field) ? g.getString(field, 0) : null;
  }

  private static Map<String, String> readMap(Group parent, String field) {
    Map<String, String> out = new LinkedHashMap<>();
    if (has(parent, field)) {
      Group map = parent.getGroup(field, 0);
      String entryName = map.getType().getType(0).getName();
      int n = map.getFieldRepetitionCount(entryName);
      for (int i = 0; i < n; i++) {
        Group kv = map.getGroup(entryName, i);
        out.put(kv.getString("key", 0), has(kv, "value") ? kv.getString("value", 0) : null);
      }
    }
    return out;
  }

  private static List<String> readList(Group parent, String field) {
    List<String> out = new ArrayList<>();
    if (has(parent, field)) {
      Group list = parent.getGroup(field, 0);
      String entryName = list.getType().getType(0).getName();
      int n = list.getFieldRepetitionCount(entryName);
      for (int i = 0; i < n; i++) {
        Group e = list.getGroup(entryName, i);
        if (has(e, e.getType().getType(0).getName())) {
          out.add(e.getString(0, 0));
        }
      }
    }
    return out;
  }

  private static final class GroupReaderBuilder extends ParquetReader.Builder<Group> {
    GroupReaderBuilder(InputFile file) {
      super(file, new PlainParquetConfiguration());
    }

    @Override
    protected ReadSupport<Group> getReadSupport() {
      return new GroupReadSupport();
    }
  }

  /** Parquet output into a memory buffer. */
  private record BufferOutputFile(ByteArrayOutputStream buffer) implements OutputFile {
    @Override
    public PositionOutputStream create(long blockSizeHint) {
      return new DelegatingPositionOutputStream(buffer) {
        @Override
        public long getPos() {
          return buffer.size();
        }
      };
    }

    @Override
    public PositionOutputStream createOrOverwrite(long blockSizeHint) {
      buffer.reset();
      return create(blockSizeHint);
    }

    @Override
    public boolean supportsBlockSize() {
      return false;
    }

    @Override
    public long defaultBlockSize() {
      return 0;
    }
  }

  /** Parquet input from a byte array. */
  private record BufferInputFile(byte[] bytes) implements InputFile {
    @Override
    public long getLength() {
      return bytes.length;
    }

    @Override
    public SeekableInputStream newStream() {
      SeekableBytes in = new SeekableBytes(bytes);
      return new DelegatingSeekableInputStream(in) {
        @Override
        public long getPos() {
          return in.position();
        }

        @Override
        public void seek(long newPos) {
          in.seek((int) newPos);
        }
      };
    }
  }

  private static final class SeekableBytes extends ByteArrayInputStream {
    SeekableBytes(byte[] bytes) {
      super(bytes);
    }

    long position() {
      return pos;
    }

    void seek(int newPos) {
      pos = newPos;
    }
  }
}
