package dev.penstock.testing;

import java.nio.file.Path;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/// Writes real Parquet files with parquet-java, the reference implementation.
public final class ParquetFiles {
    private ParquetFiles() {
    }

    /// `rows` rows: f0 double, f1 float, f2 int32, f3 int64, label string, f4 optional double
    /// (null every 10th row); the numeric value at (r, c) is r · 4 + c. Uncompressed, with row
    /// groups of about `rowGroupBytes` and 4 KiB pages.
    public static Path mixed(Path file, int rows, int rowGroupBytes) throws Exception {
        return mixed(file, rows, rowGroupBytes, false);
    }

    /// As `mixed(file, rows, rowGroupBytes)`; with `plain`, no dictionary encoding (every page
    /// PLAIN, as a reader may read in place). Page checksums are written.
    public static Path mixed(Path file, int rows, int rowGroupBytes, boolean plain) throws Exception {
        MessageType schema = MessageTypeParser.parseMessageType("""
                message rows {
                  required double f0;
                  required float f1;
                  required int32 f2;
                  required int64 f3;
                  required binary label (UTF8);
                  optional double f4;
                }
                """);
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        // PlainParquetConfiguration: no Hadoop Configuration, so none of Hadoop's dependencies
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withRowGroupSize((long) rowGroupBytes)
                .withDictionaryEncoding(!plain).withPageWriteChecksumEnabled(true).withPageSize(4096).build()) {
            for (int r = 0; r < rows; r++) {
                Group g = groups.newGroup().append("f0", r * 4.0).append("f1", (float) (r * 4 + 1)).append("f2", r * 4 + 2)
                        .append("f3", (long) r * 4 + 3).append("label", "row" + r);
                if (r % 10 != 0) {
                    g.append("f4", r * 4.0 + 4);
                }
                w.write(g);
            }
        }
        return file;
    }

    /// `rows` rows of three required doubles `x`, `y`, `z` (row r: r + 1, 2r + 1, 3r + 1),
    /// compressed with `codec` (as Spark, DuckDB and pyarrow write ZSTD or SNAPPY by default).
    public static Path compressed(Path file, int rows, CompressionCodecName codec) throws Exception {
        MessageType schema = MessageTypeParser.parseMessageType("message rows { required double x; required double y; required double z; }");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration()).withCodecFactory(new DirectCodecs()).withCompressionCodec(codec)
                .withPageSize(4096).build()) {
            for (int r = 0; r < rows; r++) {
                w.write(groups.newGroup().append("x", r + 1.0).append("y", 2.0 * r + 1).append("z", 3.0 * r + 1));
            }
        }
        return file;
    }

    /// `cols` numeric columns `c0…` cycling through the types a reader converts — required
    /// double, required float, required int32, optional double (null where (row + column) % 7 is
    /// 0) — each row's value `row · 100 + column` (exact in every type), in small pages and row
    /// groups: for checks of the column-to-row copy across column blocks and batches.
    public static Path wide(Path file, int rows, int cols) throws Exception {
        return wide(file, rows, cols, false, false);
    }

    /// As `wide(file, rows, cols)`; with `plain`, no dictionary encoding; page checksums are
    /// written; with `v2`, data pages of format version 2 (levels stored apart from the values).
    public static Path wide(Path file, int rows, int cols, boolean plain, boolean v2) throws Exception {
        StringBuilder text = new StringBuilder("message rows {\n");
        for (int c = 0; c < cols; c++) {
            text.append(switch (c % 4) {
                case 0 -> "  required double c";
                case 1 -> "  required float c";
                case 2 -> "  required int32 c";
                default -> "  optional double c";
            }).append(c).append(";\n");
        }
        MessageType schema = MessageTypeParser.parseMessageType(text.append("}\n").toString());
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withRowGroupSize(64L * 1024)
                .withDictionaryEncoding(!plain).withPageWriteChecksumEnabled(true)
                .withWriterVersion(v2 ? org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_2_0
                        : org.apache.parquet.column.ParquetProperties.WriterVersion.PARQUET_1_0)
                .withPageSize(4096).build()) {
            for (int r = 0; r < rows; r++) {
                Group g = groups.newGroup();
                for (int c = 0; c < cols; c++) {
                    int v = r * 100 + c;
                    switch (c % 4) {
                        case 0 -> g.append("c" + c, (double) v);
                        case 1 -> g.append("c" + c, (float) v);
                        case 2 -> g.append("c" + c, v);
                        default -> {
                            if ((r + c) % 7 != 0) {
                                g.append("c" + c, (double) v);
                            }
                        }
                    }
                }
                w.write(g);
            }
        }
        return file;
    }

    /// `rows` records with one `features` list of `len` doubles (value (r, j) = r · 100 + j);
    /// record `shortRow` (if in range) gets one value fewer. With `withId`, an int64 `id` column
    /// comes first.
    public static Path lists(Path file, int rows, int len, int shortRow, boolean withId) throws Exception {
        MessageType schema = MessageTypeParser.parseMessageType("message rows { " + (withId ? "required int64 id; " : "")
                + "required group features (LIST) { repeated group list { required double element; } } }");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration()).withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
                .withRowGroupSize(64L * 1024).withPageSize(4096).build()) {
            for (int r = 0; r < rows; r++) {
                Group g = groups.newGroup();
                if (withId) {
                    g.append("id", (long) r);
                }
                Group list = g.addGroup("features");
                for (int j = 0; j < (r == shortRow ? len - 1 : len); j++) {
                    list.addGroup("list").append("element", r * 100.0 + j);
                }
                w.write(g);
            }
        }
        return file;
    }

    /// `rows` records of the schema `fields` (required fields in Parquet's schema syntax: `double`,
    /// `float`, `int32`, `int64`, `binary` and 3-element `(LIST)` groups of doubles); record r holds
    /// r + 0.5 in a float field, r in an integer one, "r" in a binary one, [r, r + 1, r + 2] in a list.
    public static Path table(Path file, int rows, String fields) throws Exception {
        MessageType schema = MessageTypeParser.parseMessageType("message rows { " + fields + " }");
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new LocalOutputFile(file)).withType(schema)
                .withConf(new PlainParquetConfiguration()).withCompressionCodec(CompressionCodecName.UNCOMPRESSED).build()) {
            for (int r = 0; r < rows; r++) {
                Group g = groups.newGroup();
                for (org.apache.parquet.schema.Type t : schema.getFields()) {
                    if (!t.isPrimitive()) {
                        Group list = g.addGroup(t.getName());
                        for (int j = 0; j < 3; j++) {
                            list.addGroup("list").append("element", (double) r + j);
                        }
                        continue;
                    }
                    switch (t.asPrimitiveType().getPrimitiveTypeName()) {
                        case DOUBLE -> g.append(t.getName(), r + 0.5);
                        case FLOAT -> g.append(t.getName(), r + 0.5f);
                        case INT32 -> g.append(t.getName(), r);
                        case INT64 -> g.append(t.getName(), (long) r);
                        default -> g.append(t.getName(), Integer.toString(r));
                    }
                }
                w.write(g);
            }
        }
        return file;
    }
}
