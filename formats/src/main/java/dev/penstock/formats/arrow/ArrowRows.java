package dev.penstock.formats.arrow;

import dev.penstock.formats.FeatureRows;
import dev.penstock.formats.arrow.ArrowIpc.Array;
import dev.penstock.formats.arrow.ArrowIpc.Batch;
import dev.penstock.formats.arrow.ArrowIpc.Kind;
import dev.penstock.io.BadInputException;
import dev.penstock.memory.DType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/// The rows of an Arrow IPC file — the file format (`.arrow`, Feather v2) or the stream format
/// (`.arrows`) — as float64 feature rows: either flat numeric columns (column `c` of the
/// selection is value `c` of every row) or one fixed-size-list-of-numbers column (each record's
/// list is its row), the contract of `ParquetRows`. Nulls (of a value, or of a whole list)
/// become NaN, so the encoder's bad-row policy decides what happens to such rows.
///
/// The file is memory-mapped; opening reads every record batch's header (the FlatBuffers tables
/// of `arrow-format`, not Arrow's allocator; in the file format, where the footer says they
/// are, its schema being the footer's), so the row count is known and any rows can be read
/// from any thread at once, each read decoding the record batches it spans straight from the
/// mapping into the caller's rows. Compressed record batches (LZ4, ZSTD) and dictionary-encoded
/// selected columns are refused; a damaged file fails in one line naming the file and where.
///
/// Threading: `read` from any number of threads at once; `close` after the last.
public final class ArrowRows implements FeatureRows {
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private final Path file;
    private final Arena arena;
    private final MemorySegment map;
    private final List<String> names;
    private final List<String> leftOut;
    private final Kind[] kinds;
    private final boolean listMode;
    private final int width;
    private final long rows;
    private final Batch[] batches;

    private ArrowRows(Path file, Arena arena, MemorySegment map, List<String> names, Kind[] kinds, boolean listMode, int width, List<Batch> batches,
            List<String> leftOut) {
        this.file = file;
        this.leftOut = leftOut;
        this.arena = arena;
        this.map = map;
        this.names = List.copyOf(names);
        this.kinds = kinds;
        this.listMode = listMode;
        this.width = width;
        this.batches = batches.toArray(Batch[]::new);
        this.rows = batches.isEmpty() ? 0 : batches.getLast().first() + batches.getLast().rows();
    }

    /// Opens `file` and selects `columns` (empty: `DefaultColumns`' choice).
    ///
    /// @throws BadInputException naming the file (and column) when it is not Arrow IPC, is
    ///                           damaged or compressed, or a column is missing or of another type
    public static ArrowRows open(Path file, List<String> columns) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment map;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                map = ch.size() == 0 ? MemorySegment.NULL : ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size(), arena);
            }
            ArrowIpc.Parsed p = ArrowIpc.read(file, map, columns);
            return new ArrowRows(file, arena, map, p.names(), p.kinds(), p.list(), p.width(), p.batches(), p.leftOut());
        } catch (IOException | RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /// The file.
    public Path file() {
        return file;
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public int rowLength() {
        return width;
    }

    /// F64: every value is read as float64.
    @Override
    public DType dtype() {
        return DType.F64;
    }

    /// The selected columns.
    public List<String> columnNames() {
        return names;
    }

    /// The numeric columns the default choice left out (none when columns were named).
    public List<String> leftOutColumns() {
        return leftOut;
    }

    /// Whether the rows are one fixed-size-list column's lists.
    public boolean listMode() {
        return listMode;
    }

    /// Record batches in the file.
    public int batches() {
        return batches.length;
    }

    /// Copies rows `[first, first + count)` into `dst` as float64 values, C order (NaN for a null).
    @Override
    public void read(long first, int count, MemorySegment dst) {
        if (first < 0 || count < 0 || first + count > rows) {
            throw new IndexOutOfBoundsException("rows [" + first + ", " + (first + count) + ") of " + rows);
        }
        long row = first;
        long end = first + count;
        int b = batchOf(first);
        while (row < end) {
            Batch batch = batches[b++];
            long from = row - batch.first();
            long to = Math.min(batch.rows(), end - batch.first());
            long out = (row - first) * width * 8L;
            if (listMode) {
                list(batch, from, to, dst, out);
            } else {
                for (int c = 0; c < kinds.length; c++) {
                    column(batch.arrays()[c], kinds[c], null, from, to, 1, dst, out + 8L * c, 8L * width);
                }
            }
            row = batch.first() + to;
        }
    }

    private int batchOf(long row) {
        int lo = 0;
        int hi = batches.length - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (batches[mid].first() <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        while (lo < batches.length - 1 && batches[lo].rows() == 0) {
            lo++;
        }
        return lo;
    }

    private void list(Batch batch, long from, long to, MemorySegment dst, long out) {
        Array lists = batch.arrays()[0];
        Array values = batch.arrays()[1];
        column(values, kinds[0], lists, from * width, to * width, width, dst, out, 8L);
    }

    /// Values `[from, to)` of `a` (of kind `k`) as float64 into `dst` from byte `out`, `stride`
    /// bytes apart; NaN where the value is null, or where its list (`lists`: value v is in list
    /// v / `per`) is.
    private void column(Array a, Kind k, Array lists, long from, long to, int per, MemorySegment dst, long out, long stride) {
        MemorySegment m = map;
        boolean nulls = a.nulls() > 0 && a.validityBytes() > 0;
        boolean listNulls = lists != null && lists.nulls() > 0 && lists.validityBytes() > 0;
        long base = a.values();
        for (long v = from; v < to; v++, out += stride) {
            double x = switch (k) {
                case F64 -> m.get(F64, base + 8 * v);
                case F32 -> m.get(ValueLayout.JAVA_FLOAT_UNALIGNED, base + 4 * v);
                case I64 -> m.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 8 * v);
                case I32 -> m.get(ValueLayout.JAVA_INT_UNALIGNED, base + 4 * v);
                case I16 -> m.get(ValueLayout.JAVA_SHORT_UNALIGNED, base + 2 * v);
                case I8 -> m.get(ValueLayout.JAVA_BYTE, base + v);
                case U64 -> unsigned(m.get(ValueLayout.JAVA_LONG_UNALIGNED, base + 8 * v));
                case U32 -> Integer.toUnsignedLong(m.get(ValueLayout.JAVA_INT_UNALIGNED, base + 4 * v));
                case U16 -> Short.toUnsignedInt(m.get(ValueLayout.JAVA_SHORT_UNALIGNED, base + 2 * v));
                case U8 -> Byte.toUnsignedInt(m.get(ValueLayout.JAVA_BYTE, base + v));
            };
            if ((nulls && !valid(a, v)) || (listNulls && !valid(lists, v / per))) {
                x = Double.NaN;
            }
            dst.set(F64, out, x);
        }
    }

    private boolean valid(Array a, long i) {
        return (map.get(ValueLayout.JAVA_BYTE, a.validity() + (i >>> 3)) >> (i & 7) & 1) != 0;
    }

    private static double unsigned(long x) {
        return x >= 0 ? x : (double) (x >>> 1) * 2.0 + (x & 1);
    }

    @Override
    public void close() {
        arena.close();
    }
}
