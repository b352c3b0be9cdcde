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
///   open:  Hardwood's footer ─▶ each selected chunk's page headers (Thrift compact, read here)
///          ─▶ a page list per column and row group, or null: not a plain file, use Hardwood
///   next:  per column, its next k values as doubles: one bulk copy from the mapping (a double
///          page without nulls), or converted one by one (float, int32, int64, nulls as NaN)
///          ─▶ eight columns at a time into row-major [k, width] (ColumnRows.copy)
/// ```
///
/// Why it exists: on the `encode-file` workload (100 MB, 1,024 double columns) Hardwood's
/// decode took 0.33–0.51 s of CPU for what is, in such a file, a copy — CPU the encode
/// pipeline's other stages need on a small machine (PERFORMANCE.md). The values are the same
/// bits either way (`ParquetRowsTest` reads files both ways and compares them).
///
/// Damage: page headers that do not parse, pages that overrun their chunk or hold other than
/// the chunk's values, or an unsupported page: `open` returns null and Hardwood reads the file
/// (and reports what is wrong with it). A page whose checksum (when written) does not match, or
/// whose definition levels do not decode, is reported by `next` as a damaged file, naming the
/// row and column.
///
/// Why one file: the page-header reader (Thrift's compact protocol, just the fields a page
/// header has), the scan that lists each chunk's pages and the cursors that read them are one
/// format's layout, sharing its `Page` records; apart, each would expose the others' internals.
///
/// Threading: one thread at a time (the mapping is shared, so any thread may be the one).
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

    /// A column's reading position and scratch.
    private static final class Column {
        final String name;
        final PhysicalType type;
        final int size; // bytes per value
        final int maxDef;
        final List<Page[]> groups = new ArrayList<>(); // the pages of each selected row group
        Page[] pages;
        int page = -1;
        int row; // within the page
        int value; // non-null values of the page consumed
        byte[] defined; // per row of the page: 1 = a value; null: the page has no nulls
        byte[] levelBuffer; // reused by the pages with nulls

        Column(ColumnSchema s) {
            this.name = s.name();
            this.type = s.type();
            this.size = type == PhysicalType.DOUBLE || type == PhysicalType.INT64 ? 8 : 4;
            this.maxDef = s.maxDefinitionLevel();
        }
    }

    private final Path file;
    private final Arena arena;
    private final MemorySegment map;
    private final Column[] columns;
    private final long[] groupRows;
    private final long firstRow;
    private final double[][] values; // each column's values of the batch
    private int group = -1;
    private long groupLeft;
    private long delivered;

    private PlainPages(Path file, Arena arena, MemorySegment map, Column[] columns, long[] groupRows, long firstRow) {
        this.file = file;
        this.arena = arena;
        this.map = map;
        this.columns = columns;
        this.groupRows = groupRows;
        this.firstRow = firstRow;
        this.values = new double[columns.length][];
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
                columns[c] = new Column(schema.get(c));
            }
            for (int g = 0; g < count; g++) {
                RowGroup rg = all.get(first + g);
                groupRows[g] = rg.numRows();
                for (int c = 0; c < columns.length; c++) {
                    Page[] pages = scan(map, rg.columns().get(schema.get(c).columnIndex()), columns[c], rg.numRows());
                    if (pages == null) {
                        arena.close();
                        return null;
                    }
                    columns[c].groups.add(pages);
                }
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

    /// Rows handed out so far.
    long delivered() {
        return delivered;
    }

    /// Copies the next rows, up to `maxRows` (never across a row group), into `dst` as float64
    /// row-major `[k, width]`; returns k, 0 at the end.
    int next(MemorySegment dst, int maxRows) {
        while (groupLeft == 0) {
            if (group + 1 >= groupRows.length) {
                return 0;
            }
            group++;
            groupLeft = groupRows[group];
            for (Column c : columns) {
                c.pages = c.groups.get(group);
                c.page = -1;
                c.row = 0;
            }
        }
        int k = (int) Math.min(maxRows, groupLeft);
        for (int c = 0; c < columns.length; c++) {
            take(c, k);
        }
        ColumnRows.copy(values, 0, columns.length, k, dst);
        groupLeft -= k;
        delivered += k;
        return k;
    }

    /// Fills `values[c]` with column c's next k values as doubles: a bulk copy from the mapping
    /// where they are doubles without nulls, converted one by one otherwise (nulls as NaN).
    private void take(int c, int k) {
        Column col = columns[c];
        if (values[c] == null || values[c].length < k) {
            values[c] = new double[Math.max(k, 64)];
        }
        double[] out = values[c];
        int filled = 0;
        while (filled < k) {
            if (col.page < 0 || col.row == col.pages[col.page].rows) {
                enter(col, col.page + 1);
            }
            Page p = col.pages[col.page];
            int n = Math.min(k - filled, p.rows - col.row);
            if (col.type == PhysicalType.DOUBLE && col.defined == null) {
                MemorySegment.copy(map, F64, p.values + (long) col.value * 8, out, filled, n);
                col.value += n;
            } else {
                for (int i = 0; i < n; i++) {
                    double v;
                    if (col.defined != null && col.defined[col.row + i] == 0) {
                        v = Double.NaN;
                    } else {
                        long at = p.values + (long) col.value * col.size;
                        v = switch (col.type) {
                            case DOUBLE -> map.get(F64, at);
                            case FLOAT -> map.get(F32, at);
                            case INT32 -> map.get(I32, at);
                            default -> map.get(I64, at);
                        };
                        col.value++;
                    }
                    out[filled + i] = v;
                }
            }
            col.row += n;
            filled += n;
        }
    }

    /// Makes page `index` of the current group column `col`'s page: checks its checksum, decodes
    /// its definition levels, checks that its values fit in it.
    private void enter(Column col, int index) {
        if (index >= col.pages.length) {
            throw damaged(col, "its pages hold fewer values than the row group's rows");
        }
        Page p = col.pages[index];
        if (p.crc != null) {
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(map.asSlice(p.start, p.length).asByteBuffer());
            if ((int) crc.getValue() != p.crc) {
                throw damaged(col, "a page's checksum does not match its data");
            }
        }
        col.page = index;
        col.row = 0;
        col.value = 0;
        col.defined = null;
        int present = p.rows;
        if (p.levelBytes > 0 && p.nulls != 0) {
            if (col.levelBuffer == null || col.levelBuffer.length < p.rows) {
                col.levelBuffer = new byte[p.rows];
            }
            present = levels(map, p.levels, p.levelBytes, col.levelBuffer, p.rows, col);
            col.defined = present == p.rows ? null : col.levelBuffer;
        } else if (col.maxDef > 0 && p.levelBytes == 0 && p.nulls < 0 && p.rows > 0) {
            throw damaged(col, "a page of an optional column without definition levels");
        }
        if ((long) present * col.size > p.start + p.length - p.values) {
            throw damaged(col, "a page holds " + (p.start + p.length - p.values) + " bytes of values, too few for its " + present
                    + " values");
        }
    }

    /// Decodes `n` definition levels (bit width 1: the column's maximum is 1) into `defined`;
    /// returns how many are 1 (the values the page holds).
    private int levels(MemorySegment m, long at, int bytes, byte[] defined, int n, Column col) {
        long end = at + bytes;
        int i = 0;
        int present = 0;
        while (i < n) {
            if (at >= end) {
                throw damaged(col, "a page's definition levels end before its values");
            }
            long header = 0;
            int shift = 0;
            byte b;
            do {
                if (at >= end || shift > 35) {
                    throw damaged(col, "a page's definition levels do not decode");
                }
                b = m.get(ValueLayout.JAVA_BYTE, at++);
                header |= (long) (b & 0x7f) << shift;
                shift += 7;
            } while (b < 0);
            if ((header & 1) == 0) { // a run of one value
                long run = header >>> 1;
                if (at >= end) {
                    throw damaged(col, "a page's definition levels do not decode");
                }
                int v = m.get(ValueLayout.JAVA_BYTE, at++) & 1;
                int len = (int) Math.min(run, n - i);
                Arrays.fill(defined, i, i + len, (byte) v);
                present += v * len;
                i += len;
            } else { // bit-packed groups of eight
                long groups = header >>> 1;
                if (groups > (end - at)) {
                    throw damaged(col, "a page's definition levels do not decode");
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

    private BadInputException damaged(Column col, String why) {
        return new BadInputException(file, file + ": row " + (firstRow + delivered) + ", column '" + col.name + "': " + why
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
