package dev.penstock.formats.parquet;

import dev.hardwood.metadata.ColumnChunk;
import dev.hardwood.metadata.ColumnMetaData;
import dev.hardwood.metadata.CompressionCodec;
import dev.hardwood.metadata.Encoding;
import dev.hardwood.metadata.PhysicalType;
import dev.hardwood.metadata.RowGroup;
import dev.hardwood.schema.ColumnSchema;
import dev.penstock.io.BadInputException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/// Flat numeric columns stored the simplest way Parquet stores them — uncompressed, every data
/// page PLAIN, no dictionary — read straight from the file's mapping into rows, without a
/// decoder: a PLAIN double is its own eight little-endian bytes. `ParquetRows` reads such files
/// this way and every other file (compressed, dictionary-encoded, lists) through Hardwood.
///
/// ```
///   open:  Hardwood's footer ─▶ the first selected group's page headers (Thrift compact, read
///          here) ─▶ a page list per column, or null: not a plain file, use Hardwood; a later
///          group's pages listed by the first read that needs them
///   read(first, k), from any thread:
///          per column, its k values as doubles: one bulk copy from the mapping (a double page
///          without nulls), or converted one by one (float, int32, int64, nulls as NaN)
///          ─▶ eight columns at a time into row-major [k, width] (ColumnRows.copy)
/// ```
///
/// Why it exists: on the `encode-file` workload (100 MB, 1,024 double columns) Hardwood's
/// decode took 0.33–0.51 s of CPU for what is, in such a file, a copy — CPU the encode
/// pipeline's other stages need on a small machine (PERFORMANCE.md). The values are the same
/// bits either way (`ParquetRowsTest` reads files both ways and compares them).
///
/// Damage: page headers in the first selected row group that do not parse, pages that overrun
/// their chunk or hold other than the chunk's values, or an unsupported page: `open` returns
/// null and Hardwood reads the file (and reports what is wrong with it). The same in a later
/// group (whose pages are listed when first read), a page whose checksum (when written) does not
/// match, or one whose definition levels do not decode is reported by `read` as a damaged file,
/// naming the row and column.
///
/// Why one file: the page-header reader (Thrift's compact protocol, just the fields a page
/// header has), the scan that lists each chunk's pages and the cursors that read them are one
/// format's layout, sharing its `Page` records; apart, each would expose the others' internals.
///
/// Threading: `read` from any number of threads at once (a page's checksum and levels are
/// worked out by whichever reads it first and kept).
final class PlainPages implements AutoCloseable {
    private static final Set<PhysicalType> TYPES = Set.of(PhysicalType.DOUBLE, PhysicalType.FLOAT, PhysicalType.INT32,
            PhysicalType.INT64);
    /// Rows of one page beyond which the decoder reads it: the definition levels of a page are
    /// decoded whole into a byte per row (parquet-java's pages hold ~1 MB of values).
    private static final int MAX_PAGE_ROWS = 1 << 26;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /// One data page: where its values (and definition levels) are, how many rows it holds.
    ///
    /// @param start      the first byte of the page's data (after its header)
    /// @param length     bytes of the page's data
    /// @param crc        the written CRC-32 of the data, or null
    /// @param rows       values of the page, nulls included (one per row: the column is flat)
    /// @param levels     the first byte of the definition levels (RLE/bit-packed hybrid)
    /// @param levelBytes their length (0: no levels, the column is required)
    /// @param values     the first byte of the PLAIN values
    /// @param nulls      how many values are null, or -1 when only the levels can tell
    private record Page(long start, int length, Integer crc, int rows, long levels, int levelBytes, long values, int nulls) {
    }

    /// What reading a page has learnt, kept for every later read of it (from any thread).
    private static final class PageState {
        volatile boolean verified; // its checksum matched (or it has none)
        volatile int[] valueAt;    // per row, the index of its value, -1 for a null; null: no nulls
        volatile boolean levelsRead;
    }

    /// The pages of one column chunk, each page's first row within its group and what reading
    /// it has learnt.
    private record Chunk(Page[] pages, long[] firstRows, PageState[] states) {
        static Chunk of(Page[] pages) {
            long[] first = new long[pages.length];
            PageState[] st = new PageState[pages.length];
            long r = 0;
            for (int i = 0; i < pages.length; i++) {
                first[i] = r;
                r += pages[i].rows;
                st[i] = new PageState();
            }
            return new Chunk(pages, first, st);
        }
    }

    /// A column: its chunk in each selected row group, whose pages are listed the first time a
    /// read needs them (the first group's at open).
    private static final class Column {
        final String name;
        final PhysicalType type;
        final int size; // bytes per value
        final int maxDef;
        final ColumnChunk[] chunks;
        final java.util.concurrent.atomic.AtomicReferenceArray<Chunk> scanned;

        Column(ColumnSchema s, int groups) {
            this.name = s.name();
            this.type = s.type();
            this.size = type == PhysicalType.DOUBLE || type == PhysicalType.INT64 ? 8 : 4;
            this.maxDef = s.maxDefinitionLevel();
            this.chunks = new ColumnChunk[groups];
            this.scanned = new java.util.concurrent.atomic.AtomicReferenceArray<>(groups);
        }
    }

    private final Path file;
    private final Arena arena;
    private final MemorySegment map;
    private final Column[] columns;
    private final long firstRow;
    private final long[] groupFirst; // the first row of each selected group (and the total at the end)
    // each column's values of one read: a set per read running at once, reused, owned by this
    // reader (a ThreadLocal would leave them on long-lived threads after the reader is gone)
    private final java.util.concurrent.ConcurrentLinkedQueue<double[][]> scratch = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private PlainPages(Path file, Arena arena, MemorySegment map, Column[] columns, long[] groupRows, long firstRow) {
        this.file = file;
        this.arena = arena;
        this.map = map;
        this.columns = columns;
        this.firstRow = firstRow;
        this.groupFirst = new long[groupRows.length + 1];
        for (int g = 0; g < groupRows.length; g++) {
            groupFirst[g + 1] = groupFirst[g] + groupRows[g];
        }
    }

    /// The plain reader of `schema`'s columns in row groups `first … first + count - 1` of `file`,
    /// or null when any of their chunks is not plain and uncompressed (or its pages do not
    /// parse): then Hardwood reads the file.
    static PlainPages open(Path file, List<RowGroup> all, List<ColumnSchema> schema, int first, int count, long firstRow)
            throws IOException {
        for (ColumnSchema s : schema) {
            if (!TYPES.contains(s.type()) || s.maxRepetitionLevel() != 0 || s.maxDefinitionLevel() > 1) {
                return null;
            }
        }
        for (int g = first; g < first + count; g++) {
            for (ColumnSchema s : schema) {
                if (!plainChunk(all.get(g).columns().get(s.columnIndex()).metaData())) {
                    return null;
                }
            }
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment map;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                map = ch.size() == 0 ? MemorySegment.NULL : ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            }
            Column[] columns = new Column[schema.size()];
            long[] groupRows = new long[count];
            for (int c = 0; c < columns.length; c++) {
                columns[c] = new Column(schema.get(c), count);
            }
            for (int g = 0; g < count; g++) {
                RowGroup rg = all.get(first + g);
                groupRows[g] = rg.numRows();
                for (int c = 0; c < columns.length; c++) {
                    columns[c].chunks[g] = rg.columns().get(schema.get(c).columnIndex());
                }
            }
            // the first group's pages now: a writer whose pages this reader does not take (whatever
            // its footer says) goes to Hardwood; the other groups' when first read (a file's page
            // headers are spread over all of it: listing them all at open took 15 of 30 ms on the
            // benchmark's 100 MB, and grows with the file)
            for (int c = 0; count > 0 && c < columns.length; c++) {
                Page[] pages = scan(map, columns[c].chunks[0], columns[c], groupRows[0]);
                if (pages == null) {
                    arena.close();
                    return null;
                }
                columns[c].scanned.set(0, Chunk.of(pages));
            }
            return new PlainPages(file, arena, map, columns, groupRows, firstRow);
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /// Whether a chunk is uncompressed, without dictionary, its data pages PLAIN (its level
    /// encodings RLE or the old BIT_PACKED, which a required column writes no bytes of).
    private static boolean plainChunk(ColumnMetaData m) {
        if (m.codec() != CompressionCodec.UNCOMPRESSED || m.dictionaryPageOffset() != null && m.dictionaryPageOffset() > 0) {
            return false;
        }
        for (Encoding e : m.encodings()) {
            if (e != Encoding.PLAIN && e != Encoding.RLE && e != Encoding.BIT_PACKED) {
                return false;
            }
        }
        return true;
    }

    /// The data pages of one column chunk, or null when one is not what a plain chunk holds or
    /// their values do not add up to the group's rows.
    private static Page[] scan(MemorySegment map, ColumnChunk chunk, Column col, long rows) {
        ColumnMetaData m = chunk.metaData();
        long at = m.dataPageOffset();
        long end = at + m.totalCompressedSize();
        if (at < 4 || end > map.byteSize() || end < at) {
            return null;
        }
        List<Page> pages = new ArrayList<>();
        long values = 0;
        try {
            while (at < end) {
                Thrift t = new Thrift(map, at, end);
                Page p = pageHeader(t, col);
                if (p == null) {
                    return null;
                }
                if (p.start + p.length > end || p.rows > MAX_PAGE_ROWS) {
                    return null;
                }
                pages.add(p);
                values += p.rows;
                at = p.start + p.length;
            }
        } catch (IndexOutOfBoundsException | IllegalStateException e) {
            return null; // a header that does not parse: Hardwood reports the damage
        }
        return values == rows && values == m.numValues() ? pages.toArray(Page[]::new) : null;
    }

    /// Parses a page header at `t`'s position; null unless a PLAIN data page (v1 or v2).
    private static Page pageHeader(Thrift t, Column col) {
        int type = -1;
        int compressed = -1;
        int uncompressed = -1;
        Integer crc = null;
        int[] v1 = null; // num_values, encoding, definition_level_encoding
        int[] v2 = null; // num_values, num_nulls, num_rows, encoding, def bytes, rep bytes, compressed
        for (int f = t.field(); f != 0; f = t.field()) {
            switch (f) {
                case 1 -> type = t.i32();
                case 2 -> uncompressed = t.i32();
                case 3 -> compressed = t.i32();
                case 4 -> crc = t.i32();
                case 5 -> {
                    v1 = new int[] {-1, -1, -1};
                    t.enter();
                    for (int g = t.field(); g != 0; g = t.field()) {
                        switch (g) {
                            case 1 -> v1[0] = t.i32();
                            case 2 -> v1[1] = t.i32();
                            case 3 -> v1[2] = t.i32();
                            default -> t.skip();
                        }
                    }
                    t.leave();
                }
                case 8 -> {
                    v2 = new int[] {-1, -1, -1, -1, -1, -1, 1};
                    t.enter();
                    for (int g = t.field(); g != 0; g = t.field()) {
                        if (g >= 1 && g <= 6) {
                            v2[g - 1] = t.i32();
                        } else if (g == 7) {
                            v2[6] = t.bool() ? 1 : 0;
                        } else {
                            t.skip();
                        }
                    }
                    t.leave();
                }
                default -> t.skip();
            }
        }
        long start = t.position();
        if (compressed < 0 || compressed != uncompressed) {
            return null;
        }
        if (type == 0 && v1 != null && v1[0] >= 0 && v1[1] == 0) {
            if (col.maxDef == 0) {
                return new Page(start, compressed, crc, v1[0], start, 0, start, 0);
            }
            if (v1[2] != 3 || compressed < 4) { // definition levels RLE-encoded, behind their length
                return null;
            }
            int levelBytes = t.map().get(I32, start);
            if (levelBytes < 0 || 4L + levelBytes > compressed) {
                return null;
            }
            return new Page(start, compressed, crc, v1[0], start + 4, levelBytes, start + 4 + levelBytes, -1);
        }
        if (type == 3 && v2 != null && v2[0] >= 0 && v2[3] == 0 && v2[5] == 0 && v2[4] >= 0 && v2[4] <= compressed
                && v2[1] >= 0 && v2[1] <= v2[0] && (col.maxDef == 1 || v2[4] == 0 && v2[1] == 0)) {
            return new Page(start, compressed, crc, v2[0], start, v2[4], start + v2[4], v2[1]);
        }
        return null;
    }

    /// Rows in the selected row groups.
    long rows() {
        return groupFirst[groupFirst.length - 1];
    }

    /// Copies rows `[first, first + count)` of the selection into `dst` as float64 row-major
    /// `[count, width]`. Any rows, from any number of threads at once.
    void read(long first, int count, MemorySegment dst) {
        if (first < 0 || count < 0 || first + count > rows()) {
            throw new IndexOutOfBoundsException("rows [" + first + ", " + (first + count) + ") of " + rows());
        }
        double[][] taken = scratch.poll();
        double[][] values = taken != null ? taken : new double[columns.length][];
        try {
            readInto(values, first, count, dst);
        } finally {
            scratch.offer(values);
        }
    }

    private void readInto(double[][] values, long first, int count, MemorySegment dst) {
        long rowBytes = 8L * columns.length;
        long done = 0;
        while (done < count) {
            long at = first + done;
            int g = group(at);
            int k = (int) Math.min(count - done, groupFirst[g + 1] - at);
            for (int c = 0; c < columns.length; c++) {
                if (values[c] == null || values[c].length < k) {
                    values[c] = new double[Math.max(k, 64)];
                }
                take(columns[c], g, at - groupFirst[g], k, values[c]);
            }
            ColumnRows.copy(values, 0, columns.length, k, dst.asSlice(done * rowBytes, k * rowBytes));
            done += k;
        }
    }

    /// The pages of `col` in selected group `g`, listed now if no read has needed them yet (two
    /// threads may both list them; the first list kept is the one every read uses).
    private Chunk chunk(Column col, int g) {
        Chunk c = col.scanned.get(g);
        if (c != null) {
            return c;
        }
        Page[] pages = scan(map, col.chunks[g], col, groupFirst[g + 1] - groupFirst[g]);
        if (pages == null) {
            throw damaged(col, groupFirst[g], "its page headers do not parse, or its pages do not hold the row group's "
                    + (groupFirst[g + 1] - groupFirst[g]) + " values");
        }
        col.scanned.compareAndSet(g, null, Chunk.of(pages));
        return col.scanned.get(g);
    }

    /// The selected group holding row `at` of the selection.
    private int group(long at) {
        int g = java.util.Arrays.binarySearch(groupFirst, at);
        g = g >= 0 ? g : -g - 2;
        while (g + 1 < groupFirst.length - 1 && groupFirst[g + 1] == at) {
            g++; // past empty groups
        }
        return g;
    }

    /// Fills `out[0, k)` with rows `[row, row + k)` of group `g` of `col` as doubles: a bulk copy
    /// from the mapping where they are doubles without nulls, converted one by one otherwise.
    private void take(Column col, int g, long row, int k, double[] out) {
        Chunk chunk = chunk(col, g);
        Page[] pages = chunk.pages;
        long[] firstRows = chunk.firstRows;
        int p = java.util.Arrays.binarySearch(firstRows, row);
        p = p >= 0 ? p : -p - 2;
        int filled = 0;
        while (filled < k) {
            while (p < pages.length && firstRows[p] + pages[p].rows <= row + filled) {
                p++; // past this page (or an empty one)
            }
            if (p >= pages.length) {
                throw damaged(col, groupFirst[g] + row + filled, "its pages hold fewer values than the row group's rows");
            }
            Page page = pages[p];
            int[] valueAt = enter(col, chunk, p, groupFirst[g] + row + filled);
            int inPage = (int) (row + filled - firstRows[p]);
            int n = Math.min(k - filled, page.rows - inPage);
            if (valueAt == null && col.type == PhysicalType.DOUBLE) {
                MemorySegment.copy(map, F64, page.values + (long) inPage * 8, out, filled, n);
            } else {
                for (int i = 0; i < n; i++) {
                    int v = valueAt == null ? inPage + i : valueAt[inPage + i];
                    if (v < 0) {
                        out[filled + i] = Double.NaN;
                        continue;
                    }
                    long at = page.values + (long) v * col.size;
                    out[filled + i] = switch (col.type) {
                        case DOUBLE -> map.get(F64, at);
                        case FLOAT -> map.get(F32, at);
                        case INT32 -> map.get(I32, at);
                        default -> map.get(I64, at);
                    };
                }
            }
            filled += n;
        }
    }

    /// Page `p` of group `g` of `col`, ready to read: its checksum checked and its definition
    /// levels decoded the first time (by whichever thread reads it first); returns each row's
    /// value index, or null when the page has no nulls.
    private int[] enter(Column col, Chunk chunk, int p, long row) {
        Page page = chunk.pages[p];
        PageState st = chunk.states[p];
        if (!st.verified) {
            if (page.crc != null) {
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                crc.update(map.asSlice(page.start, page.length).asByteBuffer());
                if ((int) crc.getValue() != page.crc) {
                    throw damaged(col, row, "a page's checksum does not match its data");
                }
            }
            st.verified = true;
        }
        if (st.levelsRead) {
            return st.valueAt;
        }
        int present = page.rows;
        int[] valueAt = null;
        if (page.levelBytes > 0 && page.nulls != 0) {
            byte[] defined = new byte[page.rows];
            present = levels(map, page.levels, page.levelBytes, defined, page.rows, col, row);
            if (present != page.rows) {
                valueAt = new int[page.rows];
                for (int i = 0, v = 0; i < page.rows; i++) {
                    valueAt[i] = defined[i] != 0 ? v++ : -1;
                }
            }
        } else if (col.maxDef > 0 && page.levelBytes == 0 && page.nulls < 0 && page.rows > 0) {
            throw damaged(col, row, "a page of an optional column without definition levels");
        }
        if ((long) present * col.size > page.start + page.length - page.values) {
            throw damaged(col, row, "a page holds " + (page.start + page.length - page.values) + " bytes of values, too few for its "
                    + present + " values");
        }
        st.valueAt = valueAt;
        st.levelsRead = true;
        return valueAt;
    }

    /// Decodes `n` definition levels (bit width 1: the column's maximum is 1) into `defined`;
    /// returns how many are 1 (the values the page holds).
    private int levels(MemorySegment m, long at, int bytes, byte[] defined, int n, Column col, long row) {
        long end = at + bytes;
        int i = 0;
        int present = 0;
        while (i < n) {
            if (at >= end) {
                throw damaged(col, row, "a page's definition levels end before its values");
            }
            long header = 0;
            int shift = 0;
            byte b;
            do {
                if (at >= end || shift > 35) {
                    throw damaged(col, row, "a page's definition levels do not decode");
                }
                b = m.get(ValueLayout.JAVA_BYTE, at++);
                header |= (long) (b & 0x7f) << shift;
                shift += 7;
            } while (b < 0);
            if ((header & 1) == 0) { // a run of one value
                long run = header >>> 1;
                if (at >= end) {
                    throw damaged(col, row, "a page's definition levels do not decode");
                }
                int v = m.get(ValueLayout.JAVA_BYTE, at++) & 1;
                int len = (int) Math.min(run, n - i);
                Arrays.fill(defined, i, i + len, (byte) v);
                present += v * len;
                i += len;
            } else { // bit-packed groups of eight
                long groups = header >>> 1;
                if (groups > (end - at)) {
                    throw damaged(col, row, "a page's definition levels do not decode");
                }
                for (long g = 0; g < groups && i < n; g++) {
                    int bits = m.get(ValueLayout.JAVA_BYTE, at + g) & 0xff;
                    for (int j = 0; j < 8 && i < n; j++, i++) {
                        int v = (bits >>> j) & 1;
                        defined[i] = (byte) v;
                        present += v;
                    }
                }
                at += groups;
            }
        }
        return present;
    }

    /// `row`: of the selection; the message names the file row where the damage was met.
    private BadInputException damaged(Column col, long row, String why) {
        return new BadInputException(file, file + ": row " + (firstRow + row) + ", column '" + col.name + "': " + why
                + ": damaged file");
    }

    @Override
    public void close() {
        arena.close();
    }

    /// A reader of Thrift's compact protocol over a range of the mapping: just what a page header
    /// needs (fields, i32, bool, nested structs; anything else skipped).
    private static final class Thrift {
        private final MemorySegment m;
        private final long end;
        private long at;
        private final short[] lastField = new short[16];
        private int depth;
        private int type; // of the field just read
        private int boolValue; // a bool field's value rides in its type nibble

        Thrift(MemorySegment m, long at, long end) {
            this.m = m;
            this.at = at;
            this.end = end;
        }

        MemorySegment map() {
            return m;
        }

        long position() {
            return at;
        }

        private int u8() {
            if (at >= end) {
                throw new IllegalStateException("page header runs past its chunk");
            }
            return m.get(ValueLayout.JAVA_BYTE, at++) & 0xff;
        }

        private long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                int b = u8();
                v |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalStateException("varint too long");
        }

        private long zigzag() {
            long v = varint();
            return (v >>> 1) ^ -(v & 1);
        }

        /// The next field's id, 0 at the struct's end.
        int field() {
            int b = u8();
            type = b & 0x0f;
            if (type == 0) {
                return 0;
            }
            int delta = b >>> 4;
            int id = delta != 0 ? lastField[depth] + delta : (short) zigzag();
            lastField[depth] = (short) id;
            boolValue = type == 1 ? 1 : type == 2 ? 0 : -1;
            return id;
        }

        int i32() {
            if (type != 5) {
                throw new IllegalStateException("expected an i32, got type " + type);
            }
            long v = zigzag();
            if (v != (int) v) {
                throw new IllegalStateException("i32 out of range");
            }
            return (int) v;
        }

        boolean bool() {
            if (boolValue < 0) {
                throw new IllegalStateException("expected a bool, got type " + type);
            }
            return boolValue == 1;
        }

        void enter() {
            if (type != 12 || depth + 1 >= lastField.length) {
                throw new IllegalStateException("expected a struct, got type " + type);
            }
            lastField[++depth] = 0;
        }

        void leave() {
            depth--;
        }

        void skip() {
            skip(type);
        }

        private void skip(int t) {
            switch (t) {
                case 1, 2 -> {
                } // a field's bool is in its type
                case 3 -> u8();
                case 4, 5, 6 -> zigzag();
                case 7 -> at += 8;
                case 8 -> {
                    long n = varint();
                    if (n < 0 || n > end - at) {
                        throw new IllegalStateException("binary runs past the header");
                    }
                    at += n;
                }
                case 9, 10 -> {
                    int h = u8();
                    long n = h >>> 4 == 15 ? varint() : h >>> 4;
                    int et = h & 0x0f;
                    if (n < 0 || n > end - at) {
                        throw new IllegalStateException("list longer than the header");
                    }
                    for (long i = 0; i < n; i++) {
                        skipElement(et);
                    }
                }
                case 11 -> {
                    long n = varint();
                    if (n < 0 || n > end - at) {
                        throw new IllegalStateException("map longer than the header");
                    }
                    if (n > 0) {
                        int kv = u8();
                        for (long i = 0; i < n; i++) {
                            skipElement(kv >>> 4);
                            skipElement(kv & 0x0f);
                        }
                    }
                }
                case 12 -> {
                    if (depth + 1 >= lastField.length) {
                        throw new IllegalStateException("structs nested too deep");
                    }
                    lastField[++depth] = 0;
                    for (int f = field(); f != 0; f = field()) {
                        skip(type);
                    }
                    depth--;
                }
                default -> throw new IllegalStateException("unknown thrift type " + t);
            }
            if (at > end) {
                throw new IllegalStateException("page header runs past its chunk");
            }
        }

        /// An element of a list, set or map: a bool takes a byte there.
        private void skipElement(int t) {
            if (t == 1 || t == 2) {
                u8();
            } else {
                skip(t);
            }
        }
    }
}
