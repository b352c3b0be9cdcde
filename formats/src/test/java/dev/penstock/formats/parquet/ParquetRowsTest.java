package dev.penstock.formats.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Files written by parquet-java (the reference writer), read back through Hardwood.
class ParquetRowsTest {
    @TempDir
    Path dir;

    /// `rows` rows: f0 double, f1 float, f2 int32, f3 int64, label string, f4 optional double
    /// (null every 10th row); value(r, c) = r · 4 + c.
    static Path write(Path file, int rows, int rowGroupBytes) throws Exception {
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
                .withConf(new org.apache.parquet.conf.PlainParquetConfiguration())
                .withCompressionCodec(CompressionCodecName.UNCOMPRESSED).withRowGroupSize(rowGroupBytes)
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

    @Test
    void numericColumnsStreamAsRowsAcrossRowGroupsAndBatches() throws Exception {
        Path f = write(dir.resolve("rows.parquet"), 5000, 32 * 1024);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, List.of())) {
            assertThat(rows.columnNames()).containsExactly("f0", "f1", "f2", "f3", "f4");
            assertThat(rows.rows()).isEqualTo(5000);
            MemorySegment buf = arena.allocateBytes(333L * 5 * 8);
            long r = 0;
            int k;
            while ((k = rows.next(buf, 333)) > 0) {
                for (int i = 0; i < k; i++, r++) {
                    for (int c = 0; c < 4; c++) {
                        assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 5L + c)).as("row %d col %d", r, c).isEqualTo(r * 4.0 + c);
                    }
                    double f4 = buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 5L + 4);
                    if (r % 10 == 0) {
                        assertThat(f4).as("a null becomes NaN").isNaN();
                    } else {
                        assertThat(f4).isEqualTo(r * 4.0 + 4);
                    }
                }
            }
            assertThat(r).isEqualTo(5000);
            assertThat(rows.delivered()).isEqualTo(5000);
        }
    }

    @Test
    void namedColumnsAreReadInTheGivenOrder() throws Exception {
        Path f = write(dir.resolve("rows.parquet"), 10, 1 << 20);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, List.of("f3", "f0"))) {
            MemorySegment buf = arena.allocateBytes(10L * 2 * 8);
            assertThat(rows.next(buf, 10)).isEqualTo(10);
            assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, 2 * 7)).isEqualTo(7 * 4.0 + 3);
            assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, 2 * 7 + 1)).isEqualTo(7 * 4.0);
        }
    }

    @Test
    void missingOrNonNumericColumnsAreRejectedNamingFileAndColumn() throws Exception {
        Path f = write(dir.resolve("rows.parquet"), 10, 1 << 20);
        assertThatThrownBy(() -> ParquetRows.open(f, List.of("label"))).hasMessageContaining("rows.parquet")
                .hasMessageContaining("'label'").hasMessageContaining("BYTE_ARRAY");
        assertThatThrownBy(() -> ParquetRows.open(f, List.of("nope"))).hasMessageContaining("'nope'").hasMessageContaining("f0");
    }
}
