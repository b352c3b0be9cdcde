package dev.penstock.formats.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.memory.HostArena;
import dev.penstock.memory.Memory;
import dev.penstock.testing.ParquetFiles;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Files written by parquet-java (the reference writer), read back through Hardwood.
class ParquetRowsTest {
    @TempDir
    Path dir;

    static Path write(Path file, int rows, int rowGroupBytes) throws Exception {
        return ParquetFiles.mixed(file, rows, rowGroupBytes);
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
