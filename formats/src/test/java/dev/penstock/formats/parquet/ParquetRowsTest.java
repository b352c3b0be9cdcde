package dev.penstock.formats.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.io.BadInputException;
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
    void everyCodecWritersUseByDefaultIsRead() throws Exception {
        for (var codec : List.of(org.apache.parquet.hadoop.metadata.CompressionCodecName.ZSTD,
                org.apache.parquet.hadoop.metadata.CompressionCodecName.SNAPPY, org.apache.parquet.hadoop.metadata.CompressionCodecName.GZIP,
                org.apache.parquet.hadoop.metadata.CompressionCodecName.LZ4_RAW)) {
            Path f = dev.penstock.testing.ParquetFiles.compressed(dir.resolve(codec + ".parquet"), 3000, codec);
            try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, NumericColumns.of(f))) {
                MemorySegment buf = arena.allocateBytes(3000L * 3 * 8);
                long r = 0;
                int k;
                while ((k = rows.next(buf, 1000)) > 0) {
                    for (int i = 0; i < k; i++, r++) {
                        for (int c = 0; c < 3; c++) {
                            assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 3L + c)).as("%s row %d col %d", codec, r, c)
                                    .isEqualTo((c + 1) * (double) r + 1);
                        }
                    }
                }
                assertThat(r).as(codec.toString()).isEqualTo(3000);
            }
        }
    }

    @Test
    void aMissingCodecLibraryIsNamedNeverCalledDamage() {
        assertThat(ParquetRows.missingCodec(new IllegalStateException("decoding failed",
                new NoClassDefFoundError("com/github/luben/zstd/Zstd")))).isEqualTo("ZSTD");
        assertThat(ParquetRows.missingCodec(new UnsupportedOperationException("Unsupported compression codec: LZO"))).isEqualTo("LZO");
        assertThat(ParquetRows.missingCodec(new IllegalStateException("page CRC mismatch"))).isNull();
    }

    @Test
    void numericColumnsStreamAsRowsAcrossRowGroupsAndBatches() throws Exception {
        Path f = write(dir.resolve("rows.parquet"), 5000, 32 * 1024);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, NumericColumns.of(f))) {
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

    /// Wider rows than one block of eight columns (19: two blocks and three more), every type a
    /// reader converts in each block and nulls among the doubles: each value lands at its row and
    /// column, read in runs that cut across batches and row groups.
    @Test
    void wideRowsOfMixedColumnsLandEachValueAtItsRowAndColumn() throws Exception {
        int cols = 19;
        Path f = ParquetFiles.wide(dir.resolve("wide.parquet"), 3000, cols);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, NumericColumns.of(f))) {
            assertThat(rows.rowLength()).isEqualTo(cols);
            MemorySegment buf = arena.allocateBytes(257L * cols * 8);
            long r = 0;
            int k;
            int nulls = 0;
            while ((k = rows.next(buf, 257)) > 0) {
                for (int i = 0; i < k; i++, r++) {
                    for (int c = 0; c < cols; c++) {
                        double got = buf.getAtIndex(ValueLayout.JAVA_DOUBLE, (long) i * cols + c);
                        if (c % 4 == 3 && (r + c) % 7 == 0) {
                            assertThat(got).as("row %d col %d: a null", r, c).isNaN();
                            nulls++;
                        } else {
                            assertThat(got).as("row %d col %d", r, c).isEqualTo(r * 100.0 + c);
                        }
                    }
                }
            }
            assertThat(r).isEqualTo(3000);
            assertThat(nulls).isGreaterThan(1000);
        }
    }

    /// A selection of row groups reads exactly their rows (the file's values at their file rows),
    /// whichever groups: the first, middle ones, the last, none.
    @Test
    void aSelectionOfRowGroupsReadsExactlyTheirRows() throws Exception {
        Path f = write(dir.resolve("groups.parquet"), 5000, 16 * 1024);
        long[] groups = ParquetRowGroups.rowsOf(f);
        assertThat(groups.length).isGreaterThan(4);
        assertThat(java.util.Arrays.stream(groups).sum()).isEqualTo(5000);
        int[][] selections = {{0, 1}, {1, 2}, {groups.length - 1, 1}, {2, 0}, {0, groups.length}};
        for (int[] sel : selections) {
            long first = 0;
            for (int g = 0; g < sel[0]; g++) {
                first += groups[g];
            }
            long expected = 0;
            for (int g = sel[0]; g < sel[0] + sel[1]; g++) {
                expected += groups[g];
            }
            try (HostArena arena = Memory.newConfinedArena("g");
                 ParquetRows rows = ParquetRows.open(f, List.of("f0", "f3"), new ParquetRowGroups(sel[0], sel[1], first, 0))) {
                assertThat(rows.rows()).as("groups %d+%d", sel[0], sel[1]).isEqualTo(expected);
                MemorySegment buf = arena.allocateBytes(100L * 2 * 8);
                long r = 0;
                int k;
                while ((k = rows.next(buf, 100)) > 0) {
                    for (int i = 0; i < k; i++, r++) {
                        long fileRow = first + r;
                        assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 2L)).as("file row %d", fileRow).isEqualTo(fileRow * 4.0);
                        assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 2L + 1)).isEqualTo(fileRow * 4.0 + 3);
                    }
                }
                assertThat(r).as("groups %d+%d", sel[0], sel[1]).isEqualTo(expected);
            }
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ParquetRows.open(f, List.of(), new ParquetRowGroups(groups.length, 1, 0, 0)))
                .hasMessageContaining("row groups " + groups.length);
    }

    /// Without named columns: the one list column, else the float columns, else the integer ones
    /// (`DefaultColumns`); the numeric columns left out are named.
    @Test
    void theDefaultChoiceReadsFeaturesNotIdsOrLabels() throws Exception {
        String list = "required group x (LIST) { repeated group list { required double element; } }";
        Path idsAndFloats = ParquetFiles.table(dir.resolve("labelled.parquet"), 4, "required int64 id; required double a; "
                + "required int32 label; required float b; required binary name;");
        try (ParquetRows rows = ParquetRows.open(idsAndFloats, List.of())) {
            assertThat(rows.columnNames()).containsExactly("a", "b");
            assertThat(rows.leftOutColumns()).containsExactly("id", "label");
        }
        Path listAndLabel = ParquetFiles.table(dir.resolve("list-y.parquet"), 4, list + " required int32 y; required double w;");
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(listAndLabel, List.of())) {
            assertThat(rows.columnNames()).containsExactly("x");
            assertThat(rows.leftOutColumns()).containsExactly("y", "w");
            MemorySegment buf = arena.allocateBytes(4L * 3 * 8);
            assertThat(rows.next(buf, 4)).isEqualTo(4);
            assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, 3 * 2 + 1)).isEqualTo(3.0); // row 2 is [2, 3, 4]
        }
        Path ints = ParquetFiles.table(dir.resolve("ints.parquet"), 4, "required int64 j; required int32 k;");
        try (ParquetRows rows = ParquetRows.open(ints, List.of())) {
            assertThat(rows.columnNames()).containsExactly("j", "k");
            assertThat(rows.leftOutColumns()).isEmpty();
        }
        Path twoLists = ParquetFiles.table(dir.resolve("two-lists.parquet"), 4, list + " " + list.replace(" x ", " z "));
        assertThatThrownBy(() -> ParquetRows.open(twoLists, List.of())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("two-lists.parquet: 2 list columns (x, z)");
        Path text = ParquetFiles.table(dir.resolve("text.parquet"), 4, "required binary name;");
        assertThatThrownBy(() -> ParquetRows.open(text, List.of())).isInstanceOf(BadInputException.class)
                .hasMessageContaining("text.parquet: no numeric column").hasMessageContaining("name other");
        try (ParquetRows rows = ParquetRows.open(idsAndFloats, List.of("id", "a"))) {
            assertThat(rows.leftOutColumns()).as("named columns: nothing is left out by a choice").isEmpty();
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
    void aListOfDoublesColumnGivesOneRowPerRecord() throws Exception {
        Path f = ParquetFiles.lists(dir.resolve("lists.parquet"), 3000, 16, -1, true);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, List.of("features"))) {
            assertThat(rows.rowLength()).isEqualTo(16);
            assertThat(rows.rows()).isEqualTo(3000);
            MemorySegment buf = arena.allocateBytes(100L * 16 * 8);
            long r = 0;
            int k;
            while ((k = rows.next(buf, 100)) > 0) {
                for (int i = 0; i < k; i++, r++) {
                    assertThat(buf.getAtIndex(ValueLayout.JAVA_DOUBLE, i * 16L + 15)).as("row %d", r).isEqualTo(r * 100.0 + 15);
                }
            }
            assertThat(r).isEqualTo(3000);
        }
        // a file whose only numeric data is the list column: found without naming it
        Path only = ParquetFiles.lists(dir.resolve("only.parquet"), 10, 4, -1, false);
        try (ParquetRows rows = ParquetRows.open(only, List.of())) {
            assertThat(rows.columnNames()).containsExactly("features");
            assertThat(rows.rowLength()).isEqualTo(4);
        }
    }

    @Test
    void aListOfAnotherLengthIsRejectedNamingTheRow() throws Exception {
        Path f = ParquetFiles.lists(dir.resolve("ragged.parquet"), 500, 8, 321, false);
        try (HostArena arena = Memory.newConfinedArena("p"); ParquetRows rows = ParquetRows.open(f, List.of("features"))) {
            MemorySegment buf = arena.allocateBytes(64L * 8 * 8);
            assertThatThrownBy(() -> {
                while (rows.next(buf, 64) > 0) {
                    // read until the ragged row
                }
            }).hasMessageContaining("ragged.parquet").hasMessageContaining("row 321").hasMessageContaining("7 values")
                    .hasMessageContaining("have 8");
        }
    }

    @Test
    void corruptAndTruncatedFilesNameTheFileAndWhatWasExpected() throws Exception {
        Path garbage = dir.resolve("garbage.parquet");
        java.nio.file.Files.writeString(garbage, "PAR1 not really parquet PAR1");
        assertThatThrownBy(() -> ParquetRows.open(garbage, List.of())).isInstanceOf(dev.penstock.io.BadInputException.class)
                .hasMessageContaining("garbage.parquet").hasMessageContaining("footer");
        Path good = write(dir.resolve("good.parquet"), 1000, 1 << 20);
        byte[] all = java.nio.file.Files.readAllBytes(good);
        Path cut = dir.resolve("cut.parquet");
        java.nio.file.Files.write(cut, java.util.Arrays.copyOf(all, all.length / 2));
        assertThatThrownBy(() -> ParquetRows.open(cut, List.of())).hasMessageContaining("cut.parquet").hasMessageContaining("PAR1");
    }

    /// A footer that places a page index past the file's end (an input the fuzzer made) is
    /// refused when the file is opened, naming the row group and column: before, Hardwood's
    /// column workers started, one failed reading past the end, and the others stayed parked with
    /// their buffers for the life of the process (the fuzzing JVM ran out of memory).
    @Test
    void aFooterPlacingAnIndexOutsideTheFileIsRefusedBeforeAnyDecoderStarts() throws Exception {
        Path f = dir.resolve("index-beyond-end.parquet");
        try (var in = getClass().getResourceAsStream("ParquetRowsFuzzTestInputs/anyFileGivesRowsOrAClearError/leak-index-beyond-end")) {
            java.nio.file.Files.write(f, in.readAllBytes());
        }
        assertThatThrownBy(() -> ParquetRows.open(f, List.of())).isInstanceOf(dev.penstock.io.BadInputException.class)
                .hasMessageContaining("index-beyond-end.parquet").hasMessageContaining("row group 0")
                .hasMessageContaining("column 'features.list.element'").hasMessageContaining("offset index")
                .hasMessageContaining("lies outside the file");
    }

    /// A list file whose first batch does not decode fails while it is being opened (its row
    /// length comes from that batch): what the opening started is stopped there and then. It was
    /// left to the stall watchdog, which held the decoder's ~40 MB of batches for its timeout (an
    /// hour under the fuzzer, whose JVM ran out of memory): twenty such opens kept ~800 MB.
    @Test
    void aFileFailingWhileItOpensKeepsNothingAlive() throws Exception {
        Path f = dir.resolve("short-list.parquet");
        try (var in = getClass().getResourceAsStream("ParquetRowsFuzzTestInputs/anyFileGivesRowsOrAClearError/leak-list-short")) {
            java.nio.file.Files.write(f, in.readAllBytes());
        }
        var memory = java.lang.management.ManagementFactory.getMemoryMXBean();
        System.gc();
        long before = memory.getHeapMemoryUsage().getUsed();
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> ParquetRows.open(f, List.of())).isInstanceOf(dev.penstock.io.BadInputException.class)
                    .hasMessageContaining("short-list.parquet").hasMessageContaining("data ends after 0");
        }
        System.gc();
        long grown = memory.getHeapMemoryUsage().getUsed() - before;
        assertThat(grown).as("heap kept by twenty failed opens").isLessThan(200L << 20);
    }

    @Test
    void missingOrNonNumericColumnsAreRejectedNamingFileAndColumn() throws Exception {
        Path f = write(dir.resolve("rows.parquet"), 10, 1 << 20);
        assertThatThrownBy(() -> ParquetRows.open(f, List.of("label"))).hasMessageContaining("rows.parquet")
                .hasMessageContaining("'label'").hasMessageContaining("BYTE_ARRAY");
        assertThatThrownBy(() -> ParquetRows.open(f, List.of("nope"))).hasMessageContaining("'nope'").hasMessageContaining("f0");
    }
    /// A page whose header says its data runs past its column chunk's end, or has a size below
    /// zero — on which the decoder (Hardwood 1.0.1) waits forever for the bytes — is refused at
    /// open, naming the row group, column and page, before any decoding: every such file found
    /// by fuzzing (`overruns/`, and `hangs/`, which the watchdog's test reads unchecked).
    @Test
    void aPageRunningPastItsColumnChunkIsRefusedAtOpenNamingWhere() throws Exception {
        Path root = Path.of("src/test/resources/dev/penstock/formats/parquet");
        List<Path> files = new java.util.ArrayList<>();
        for (String dir : List.of("overruns", "hangs")) {
            try (var list = java.nio.file.Files.list(root.resolve(dir))) {
                files.addAll(list.sorted().toList());
            }
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(5);
        for (Path f : files) {
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> ParquetRows.open(f, NumericColumns.of(f))).as(f.toString()).isInstanceOf(BadInputException.class)
                    .hasMessageContaining(f.getFileName().toString()).hasMessageMatching("(?s).*row group \\d+, column '[^']+': the page at byte \\d+ claims .*")
                    .hasMessageEndingWith("damaged file");
            assertThat((System.nanoTime() - t0) / 1e9).as("seconds to refuse %s", f).isLessThan(5);
        }
        assertThatThrownBy(() -> ParquetRows.open(root.resolve("overruns/page-past-chunk-end.parquet"), NumericColumns.of(root.resolve("overruns/page-past-chunk-end.parquet"))))
                .hasMessageContaining("row group 0, column 'id': the page at byte 4 claims 240 bytes of data, past its column chunk's end at byte 269");
    }
}
