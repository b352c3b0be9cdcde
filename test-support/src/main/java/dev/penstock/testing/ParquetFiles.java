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
                .withPageSize(4096).build()) {
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
}
