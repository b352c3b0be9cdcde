package dev.penstock.formats.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.penstock.io.BadInputException;
import dev.penstock.testing.ParquetFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/// Plain, uncompressed files are read in place (`PlainPages`) and give the bits Hardwood's
/// decoder gives, in every shape parquet-java writes them: v1 and v2 data pages, required and
/// optional columns with nulls, each numeric type, pages and row groups cut across by batches,
/// a selection of row groups. Damage the reader sees itself is a clear error.
class PlainPagesTest {
    @TempDir
    Path dir;

    /// Every row of `file` (columns `columns`, row groups `groups`), read in `batch`-row calls,
    /// in place or through the decoder, as the bytes of the row-major result.
    private static byte[] readAll(Path file, List<String> columns, ParquetRowGroups groups, int batch, boolean decoder,
                                  boolean expectInPlace) throws Exception {
        try (ParquetRows rows = ParquetRows.open(file, columns.isEmpty() ? NumericColumns.of(file) : columns, groups, decoder); Arena arena = Arena.ofConfined()) {
            assertThat(rows.readsInPlace()).as("read in place").isEqualTo(expectInPlace);
            int width = rows.rowLength();
            MemorySegment all = arena.allocate(Math.max(1, rows.rows() * width * 8), 8);
            MemorySegment buf = arena.allocate((long) batch * width * 8, 8);
            long done = 0;
            for (int k; (k = rows.next(buf, batch)) > 0; done += k) {
                MemorySegment.copy(buf, 0, all, done * width * 8, (long) k * width * 8);
            }
            assertThat(done).isEqualTo(rows.rows());
            assertThat(rows.delivered()).isEqualTo(done);
            return all.asSlice(0, done * width * 8).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        }
    }

    @Test
    void plainV1PagesOfEveryTypeWithNullsGiveTheDecodersBits() throws Exception {
        Path f = ParquetFiles.wide(dir.resolve("v1.parquet"), 3000, 19, true, false);
        for (int batch : new int[] {1, 257, 512, 4000}) {
            byte[] inPlace = readAll(f, List.of(), null, batch, false, true);
            byte[] decoded = readAll(f, List.of(), null, batch, true, false);
            assertThat(inPlace).as("batch %d", batch).isEqualTo(decoded);
        }
        // int64 columns too, beside a string column that is not read
        Path m = ParquetFiles.mixed(dir.resolve("mixed.parquet"), 5000, 16 * 1024, true);
        assertThat(readAll(m, List.of(), null, 333, false, true)).isEqualTo(readAll(m, List.of(), null, 333, true, false));
        assertThat(readAll(m, List.of("f4", "f3", "f0"), null, 100, false, true))
                .isEqualTo(readAll(m, List.of("f4", "f3", "f0"), null, 100, true, false));
    }

    @Test
    void plainV2PagesWithNullsGiveTheDecodersBits() throws Exception {
        Path f = ParquetFiles.wide(dir.resolve("v2.parquet"), 3000, 19, true, true);
        // version 2 writes its integers DELTA_BINARY_PACKED: those columns go through the decoder
        List<String> floats = List.of("c0", "c1", "c3", "c4", "c5", "c7", "c8", "c11", "c15", "c16", "c17");
        for (int batch : new int[] {1, 100, 512}) {
            assertThat(readAll(f, floats, null, batch, false, true)).as("batch %d", batch)
                    .isEqualTo(readAll(f, floats, null, batch, true, false));
        }
        assertThat(readAll(f, List.of(), null, 512, false, false)).as("with the int32 columns: decoded")
                .isEqualTo(readAll(f, List.of(), null, 512, true, false));
    }

    /// Rows read by index — ranges that start inside pages and cross pages and row groups, and
    /// four threads reading interleaved ranges at once — are the rows read in order.
    @Test
    void anyRowsFromAnyThreadsAreTheRowsReadInOrder() throws Exception {
        Path f = ParquetFiles.wide(dir.resolve("random.parquet"), 3000, 19, true, false);
        byte[] inOrder = readAll(f, List.of(), null, 512, false, true);
        int width = 19;
        long rowBytes = 8L * width;
        java.util.Random random = new java.util.Random(7);
        try (ParquetRows rows = ParquetRows.open(f, NumericColumns.of(f)); Arena arena = Arena.ofShared()) {
            MemorySegment buf = arena.allocate(3000 * rowBytes, 8);
            for (int i = 0; i < 200; i++) {
                long first = random.nextInt(3000);
                int count = 1 + random.nextInt((int) Math.min(700, 3000 - first));
                rows.read(first, count, buf);
                assertThat(buf.asSlice(0, count * rowBytes).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as("rows %d+%d", first, count)
                        .isEqualTo(java.util.Arrays.copyOfRange(inOrder, (int) (first * rowBytes), (int) ((first + count) * rowBytes)));
            }
            MemorySegment all = arena.allocate(3000 * rowBytes, 8);
            try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
                List<java.util.concurrent.Future<?>> parts = new java.util.ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int part = t;
                    parts.add(pool.submit(() -> {
                        for (long first = part * 97L; first < 3000; first += 4 * 97L) {
                            int count = (int) Math.min(97, 3000 - first);
                            rows.read(first, count, all.asSlice(first * rowBytes, count * rowBytes));
                        }
                    }));
                }
                for (var p : parts) {
                    p.get();
                }
            }
            assertThat(all.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)).as("four threads at once").isEqualTo(inOrder);
            assertThatThrownBy(() -> rows.read(2990, 11, buf)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3000 rows");
        }
        try (ParquetRows decoded = ParquetRows.open(f, NumericColumns.of(f), null, true); Arena arena = Arena.ofConfined()) {
            assertThatThrownBy(() -> decoded.read(0, 1, arena.allocate(rowBytes))).isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Test
    void aSelectionOfRowGroupsReadInPlaceIsTheDecodersSelection() throws Exception {
        Path f = ParquetFiles.mixed(dir.resolve("groups.parquet"), 5000, 16 * 1024, true);
        long[] groups = ParquetRowGroups.rowsOf(f);
        assertThat(groups.length).isGreaterThan(3);
        int[][] selections = {{0, 1}, {1, 2}, {groups.length - 1, 1}, {2, 0}, {0, groups.length}};
        for (int[] sel : selections) {
            long first = 0;
            for (int g = 0; g < sel[0]; g++) {
                first += groups[g];
            }
            ParquetRowGroups g = new ParquetRowGroups(sel[0], sel[1], first, 0);
            assertThat(readAll(f, List.of("f0", "f4"), g, 97, false, true)).as("groups %d+%d", sel[0], sel[1])
                    .isEqualTo(readAll(f, List.of("f0", "f4"), g, 97, true, false));
        }
    }

    @Test
    void dictionaryEncodedFilesAndListsAreDecoded() throws Exception {
        // values that repeat: parquet-java keeps their dictionary encoding
        var schema = org.apache.parquet.schema.MessageTypeParser.parseMessageType("message m { required double x; required double y; }");
        var groups = new org.apache.parquet.example.data.simple.SimpleGroupFactory(schema);
        Path dict = dir.resolve("dict.parquet");
        try (var w = org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(new org.apache.parquet.io.LocalOutputFile(dict))
                .withType(schema).withConf(new org.apache.parquet.conf.PlainParquetConfiguration())
                .withCompressionCodec(org.apache.parquet.hadoop.metadata.CompressionCodecName.UNCOMPRESSED).build()) {
            for (int r = 0; r < 2000; r++) {
                w.write(groups.newGroup().append("x", (double) (r % 10)).append("y", (double) r));
            }
        }
        assertThat(readAll(dict, List.of("x"), null, 100, false, false)).isEqualTo(readAll(dict, List.of("x"), null, 100, true, false));
        assertThat(readAll(dict, List.of("y"), null, 100, false, true)).as("y's unique values were written PLAIN")
                .isEqualTo(readAll(dict, List.of("y"), null, 100, true, false));
        Path lists = ParquetFiles.lists(dir.resolve("lists.parquet"), 50, 8, -1, false);
        try (ParquetRows rows = ParquetRows.open(lists, List.of())) {
            assertThat(rows.readsInPlace()).isFalse();
        }
    }

    /// A value changed on disk is caught by its page's checksum: the read fails naming the file,
    /// the column and the row where the damaged page starts being read — never other values.
    @Test
    void aPageWhoseChecksumDoesNotMatchIsADamagedFileNamingRowAndColumn() throws Exception {
        Path f = ParquetFiles.wide(dir.resolve("crc.parquet"), 3000, 8, true, false);
        byte[] bytes = Files.readAllBytes(f);
        // the double 100 · 1500 + 4 (row 1500, column c4) stored little-endian in its page
        byte[] needle = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putDouble(150004.0).array();
        int at = indexOf(bytes, needle);
        assertThat(at).isPositive();
        bytes[at + 3] ^= 0x10;
        Path damaged = dir.resolve("damaged.parquet");
        Files.write(damaged, bytes);
        assertThatThrownBy(() -> readAll(damaged, List.of(), null, 256, false, true)).isInstanceOf(BadInputException.class)
                .hasMessageContaining("damaged.parquet").hasMessageContaining("column 'c4'").hasMessageContaining("checksum")
                .hasMessageMatching("(?s).*row \\d+.*");
    }

    /// A row group's pages are listed when a read first needs them (the first group's at open, so
    /// a writer this reader does not follow still goes to the decoder): a page header that does
    /// not parse in a later group is a damaged file naming the column and that group's first row,
    /// and every row before that group reads as it is.
    @Test
    void aPageHeaderThatDoesNotParseInALaterGroupIsADamagedFileNamingColumnAndRow() throws Exception {
        Path f = ParquetFiles.mixed(dir.resolve("groups.parquet"), 5000, 16 * 1024, true);
        long headerAt;
        long groupFirst = 0;
        try (dev.hardwood.reader.ParquetFileReader r = dev.hardwood.reader.ParquetFileReader.open(dev.hardwood.InputFile.of(f))) {
            var groups = r.getFileMetaData().rowGroups();
            assertThat(groups.size()).as("row groups").isGreaterThan(2);
            for (int g = 0; g < 2; g++) {
                groupFirst += groups.get(g).numRows();
            }
            var f3 = groups.get(2).columns().get(3).metaData();
            assertThat(f3.pathInSchema().toString()).isEqualTo("f3");
            headerAt = f3.dataPageOffset();
        }
        byte[] bytes = Files.readAllBytes(f);
        bytes[(int) headerAt] = 0; // the header's first field becomes its end: a page of no type
        Path damaged = dir.resolve("late-header.parquet");
        Files.write(damaged, bytes);
        byte[] good = readAll(f, List.of(), null, 100, false, true);
        try (ParquetRows rows = ParquetRows.open(damaged, NumericColumns.of(damaged)); Arena arena = Arena.ofConfined()) {
            assertThat(rows.readsInPlace()).as("the first group's pages are fine: read in place").isTrue();
            long width = rows.rowLength();
            MemorySegment before = arena.allocate(groupFirst * width * 8, 8);
            rows.read(0, (int) groupFirst, before);
            assertThat(before.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                    .isEqualTo(java.util.Arrays.copyOf(good, (int) (groupFirst * width * 8)));
            MemorySegment one = arena.allocate(width * 8, 8);
            long first = groupFirst;
            assertThatThrownBy(() -> rows.read(first + 5, 1, one)).isInstanceOf(BadInputException.class)
                    .hasMessageContaining("late-header.parquet").hasMessageContaining("column 'f3'")
                    .hasMessageContaining("row " + groupFirst + ",").hasMessageContaining("page headers do not parse")
                    .hasMessageContaining("damaged file");
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
